// A host that reaches an OAuth-protected upstream (or a skill) per caller, served over loopback HTTP in this process,
// with the OAuth fixtures: a real authorization server, an SDK MCP server that requires its tokens, and the SDK client
// for callers who authenticate to the host with JWTs of that same authorization server.
import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import type { AuthorizationServer, AuthorizationServerOptions, ProtectedMcpServer } from "@skillport/test-utils";
import { authorizeWithoutBrowser, startAuthorizationServer, startProtectedMcpServer } from "@skillport/test-utils";
import pino from "pino";
import { vi } from "vitest";
import type { UpstreamClient } from "../../src/entries/upstream-client.js";
import type { Host, HostOptions } from "../../src/host.js";
import type { LoopbackHttp } from "../serving.js";
import { hostFrom, serveLoopback } from "../serving.js";

/** The audience the host accepts callers' JWTs for. */
const HOST_AUDIENCE = "https://skillport.test/mcp";
const KEY_ENV = "SKILLPORT_TEST_OAUTH_KEY";
export const LIST_ENV = "SKILLPORT_TEST_OAUTH_LIST";

/** What a test runs against; `close` stops it all. */
export interface OAuthWorld {
  as: AuthorizationServer;
  upstream: ProtectedMcpServer;
  host: Host;
  http: LoopbackHttp;
  dir: string;
  /** Every line the host logged. */
  logs: string[];
  /** Every token a caller was given by the test (the fixture's own are in `upstream.seen`). */
  minted: string[];
  /** `${origin}/connections/callback`, the redirect URI the host registers. */
  redirectUri: string;
  /** An SDK client of the host, authenticated as `sub` with a JWT for the host. */
  clientOf(sub: string): Promise<Client>;
  /** Connects `sub`'s slot through the whole flow: link, start, the user agent, finish. */
  connect(connectUrl: string, sub: string): Promise<void>;
  /** Every file the host wrote in its folder, as text. */
  files(): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * Starts the fixtures and a host over `manifest(as, upstream)` (merged with the credentials keys, a sealed file store
 * and JWT authentication), serves it, and sets its credentials' base URL.
 */
export async function startWorld(options: {
  as?: AuthorizationServerOptions;
  manifest: (as: AuthorizationServer, upstream: ProtectedMcpServer) => Record<string, unknown>;
  host?: Omit<HostOptions, "manifest" | "logger">;
  /** The origin links and the redirect URI are on. @default where the host listens */
  baseUrl?: string;
}): Promise<OAuthWorld> {
  const as = await startAuthorizationServer(options.as);
  const upstream = await startProtectedMcpServer({ issuer: as.issuer, jwksUrl: as.jwksUrl });
  const dir = await mkdtemp(path.join(os.tmpdir(), "skillport-oauth-"));
  const minted: string[] = [];
  const listToken = await as.mintAccessToken({ sub: "skillport", audience: upstream.resource, ttlSec: 600 });
  minted.push(listToken);
  vi.stubEnv(KEY_ENV, randomBytes(32).toString("base64"));
  vi.stubEnv(LIST_ENV, listToken);
  const logs: string[] = [];
  const host = await hostFrom(
    dir,
    {
      name: "oauth-test",
      version: "1.0.0",
      credentials: { keys: [{ id: "1", env: KEY_ENV }], store: { file: "credentials.sealed" } },
      http: { auth: { jwt: { jwksUrl: as.jwksUrl, issuer: as.issuer, audience: HOST_AUDIENCE } } },
      audit: { file: "audit.log" },
      skills: [],
      ...options.manifest(as, upstream),
    },
    {
      client: upstreamClient,
      logger: pino({ level: "debug" }, { write: (line: string) => logs.push(line) }),
      ...options.host,
    },
  );
  const http = await serveLoopback(host);
  const origin = options.baseUrl ?? new URL(http.url).origin;
  if (host.credentials === undefined) throw new Error("the host has no credentials");
  host.credentials.baseUrl = origin;
  const redirectUri = `${origin}/connections/callback`;
  const credentials = host.credentials;
  return {
    as,
    upstream,
    host,
    http,
    dir,
    logs,
    minted,
    redirectUri,
    async clientOf(sub) {
      const token = await as.mintAccessToken({ sub, audience: HOST_AUDIENCE, ttlSec: 600 });
      minted.push(token);
      return http.connect({}, token);
    },
    async connect(connectUrl, sub) {
      const link = await credentials.links.redeem(new URL(connectUrl).searchParams.get("link") ?? "");
      if (typeof link === "string") throw new Error(`the link is ${link}: ${connectUrl}`);
      const slot = credentials.slots().find((s) => s.id === link.slot);
      if (slot === undefined) throw new Error(`no slot ${link.slot}`);
      const { authorizationUrl } = await credentials.oauth.start(slot, link.caller);
      as.nextLogin(sub);
      const { code, state, iss } = await authorizeWithoutBrowser(authorizationUrl, redirectUri);
      const finished = await credentials.oauth.finish({ code, state: state ?? "", iss }, link.caller);
      if (!finished.ok) throw new Error(finished.reason);
    },
    async files() {
      const names = await readdir(dir, { recursive: true });
      return Promise.all(names.map((name) => readFile(path.join(dir, name), "utf8").catch(() => "")));
    },
    async close() {
      await http.close();
      await host.close();
      await upstream.close();
      await as.close();
      await rm(dir, { recursive: true, force: true });
      vi.unstubAllEnvs();
    },
  };
}

/** A tool call's answer: the envelope the host answers (structuredContent). */
export async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = await client.callTool({ name, arguments: args });
  return result.structuredContent as {
    ok: boolean;
    result?: unknown;
    message?: string;
    error?: { code: string; connectUrl?: string; message?: string };
  };
}

// --- internal ---

// The host reaches upstream servers through @skillport/client, which depends on the host: loaded from its build.
const CLIENT_NODE = new URL("../../../client/dist/node.js", import.meta.url).href;
const upstreamClient: UpstreamClient = () => import(/* @vite-ignore */ CLIENT_NODE);

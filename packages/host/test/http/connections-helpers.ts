import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { defineSkill, defineTool } from "@skillport/core";
import type { Host } from "../../src/host.js";
import { createHost } from "../../src/host.js";
import type { HttpServing } from "../../src/mcp/serve-http.js";
import { serveHostHttp } from "../../src/mcp/serve-http.js";
import { manifestOf, silentLogger } from "../helpers.js";
import { connect, ERAS } from "../http-helpers.js";

/** The static bearer tokens of the two callers (`token:alice`, `token:bob`). */
const BEARER = { alice: "alice-bearer-0123456789abcdef", bob: "bob-bearer-0123456789abcdef" } as const;

/** The first hex characters of a token's SHA-256: what the skill answers, so a test knows whose token it ran with. */
export const fingerprint = (token: string) => createHash("sha256").update(token).digest("hex").slice(0, 12);

/** A skill named `name` whose one tool needs each caller's own credential and answers its fingerprint. */
const fingerprintSkill = (name: string, credential: string) =>
  defineSkill({
    name,
    credentials: { token: { description: credential, required: true } },
    tools: [
      defineTool({
        name: "whoami",
        title: "Who am I",
        description: "Answers the fingerprint of the caller's token.",
        risk: "read_only",
        input: { type: "object", properties: {}, additionalProperties: false },
        run: (_p, ctx) => ({ fingerprint: fingerprint(ctx.token ?? "") }),
      }),
    ],
  });

/** A personal token per caller. */
const register = fingerprintSkill("gh", "a personal token");

/** Connected through OAuth. */
const registerDrive = fingerprintSkill("drive", "an OAuth access token");

/** A loopback server over a host whose skill `gh` has a per-caller token slot `gh.token`. */
export interface ConnectionsServer {
  host: Host;
  serving: HttpServing;
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  /** An SDK client calling as `who`. */
  client(who: keyof typeof BEARER): Promise<Client>;
  /** Calls `<skill>.whoami` (`gh` unless told) as `who`: its fingerprint, or the error's code and connect URL. */
  whoami(
    who: keyof typeof BEARER,
    skill?: string,
  ): Promise<{ fingerprint?: string; code?: string; connectUrl?: string }>;
  /** A fresh connect link for `who`'s slot (`gh.token` unless told), as a CREDENTIALS_MISSING answer carries. */
  linkFor(who: keyof typeof BEARER, slot?: string): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Starts a {@link ConnectionsServer}; `label` is the slot's label on the page; with `oauthIssuer`, a second skill
 * `drive` has a slot `drive.token` connected through OAuth at that issuer (asking for `oauthResource`, with the
 * scope `mcp`, when given).
 */
export async function startConnectionsServer(
  options: { label?: string; oauthIssuer?: string; oauthResource?: string; publicUrl?: string } = {},
): Promise<ConnectionsServer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "skillport-connections-"));
  const keyFile = path.join(dir, "credentials.key");
  await writeFile(keyFile, randomBytes(32).toString("base64"));
  const tokenFiles: Record<string, string> = {};
  for (const [name, secret] of Object.entries(BEARER)) {
    tokenFiles[name] = path.join(dir, `${name}.token`);
    await writeFile(tokenFiles[name], secret);
  }
  const host = await createHost({
    manifest: manifestOf({
      name: "connections-test",
      version: "1.0.0",
      skills: [
        {
          package: "skill-gh",
          credentials: { token: { perCaller: true, ...(options.label === undefined ? {} : { label: options.label }) } },
        },
        ...(options.oauthIssuer === undefined
          ? []
          : [
              {
                package: "skill-drive",
                credentials: {
                  token: {
                    perCaller: true,
                    label: "Drive",
                    oauth: {
                      issuer: options.oauthIssuer,
                      ...(options.oauthResource === undefined
                        ? {}
                        : { resource: options.oauthResource, scopes: ["mcp"] }),
                    },
                  },
                },
              },
            ]),
      ],
      credentials: { keys: [{ id: "k1", file: keyFile }] },
      http: {
        ...(options.publicUrl === undefined ? {} : { publicUrl: options.publicUrl }),
        auth: {
          tokens: Object.keys(BEARER).map((name) => ({ name, scopes: [], token: { file: tokenFiles[name] } })),
        },
      },
      audit: { file: path.join(dir, "audit.log") },
    }),
    modules: { "skill-gh": { register }, "skill-drive": { register: registerDrive } },
    logger: silentLogger(),
    lock: "off",
  });
  const serving = await serveHostHttp(host, { port: 0 });
  const origin = new URL(serving.url).origin;
  const clients: Client[] = [];
  const client = async (who: keyof typeof BEARER) => {
    const made = await connect(serving.url, ERAS[1].options, BEARER[who]);
    clients.push(made);
    return made;
  };
  return {
    host,
    serving,
    origin,
    client,
    async whoami(who, skill = "gh") {
      const result = await (await client(who)).callTool({ name: `${skill}.whoami`, arguments: {} });
      const content = result.structuredContent as Record<string, unknown> | undefined;
      if (result.isError !== true)
        return { fingerprint: String((content?.data as { fingerprint?: string } | undefined)?.fingerprint) };
      const error = (content?.error ?? {}) as { code?: string; connectUrl?: string };
      return {
        ...(error.code === undefined ? {} : { code: error.code }),
        ...(error.connectUrl === undefined ? {} : { connectUrl: error.connectUrl }),
      };
    },
    async linkFor(who, slot = "gh.token") {
      const { token } = await (host.credentials as NonNullable<Host["credentials"]>).links.mint(`token:${who}`, slot);
      return `${origin}/connections/open?link=${token}`;
    },
    async stop() {
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
      await serving.close({ graceMs: 0 });
      await host.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A browser's cookie jar in a few lines: the session cookie a response set, sent back on the next request. */
export class Browser {
  cookie: string | undefined;
  constructor(private readonly origin: string) {}

  /** A request to the server, redirects not followed, with the jar's cookie (and the server's Origin on a POST). */
  async request(
    target: string,
    init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {},
  ): Promise<Response> {
    const url = new URL(target, this.origin);
    const headers: Record<string, string> = { ...(this.cookie === undefined ? {} : { cookie: this.cookie }) };
    let body: string | undefined;
    if (init.form !== undefined) {
      headers["content-type"] = "application/x-www-form-urlencoded";
      headers.origin = this.origin;
      body = new URLSearchParams(init.form).toString();
    }
    const response = await fetch(url, {
      method: init.method ?? (body === undefined ? "GET" : "POST"),
      headers: { ...headers, ...init.headers },
      redirect: "manual",
      ...(body === undefined ? {} : { body }),
    });
    const set = response.headers.get("set-cookie");
    if (set !== null) this.cookie = set.split(";")[0];
    return response;
  }

  /** The CSRF token of the connections page as this browser sees it. */
  async csrf(): Promise<string> {
    const html = await (await this.request("/connections")).text();
    const found = /name="csrf" value="([^"]+)"/.exec(html);
    if (found?.[1] === undefined) throw new Error(`no CSRF token on the page: ${html}`);
    return found[1];
  }
}

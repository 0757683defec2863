// Per-caller credentials across two replicas sharing one Redis, against an OAuth-protected upstream MCP server (the
// SDK's server, verifying each request's JWT against a real authorization server's keys): alice and bob each stored
// their own token for it, and 200 of their calls interleave across both replicas. No call reaches the upstream with
// the other's token, no caller's own bearer token ever does, and no token is in Redis, a log or an audit line.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import type { Client } from "@modelcontextprotocol/client";
import type { AuthorizationServer, ProtectedMcpServer, RedisServer } from "@skillport/test-utils";
import { skipWithout, startAuthorizationServer, startProtectedMcpServer, startRedis } from "@skillport/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HttpInProcess } from "./in-process.js";
import { httpInProcess } from "./in-process.js";
import type { Workspace } from "./workspace.js";
import { connectAs, makeWorkspace } from "./workspace.js";

type Envelope = { ok: boolean; message: string; data?: unknown; error?: { code: string; connectUrl?: string } };

const ALICE_BEARER = "alice-bearer-0123456789abcdef";
const BOB_BEARER = "bob-bearer-0123456789abcdef";
const CAROL_BEARER = "carol-bearer-0123456789abcdef";

describe.skipIf(skipWithout("redis-server"))("per-caller credentials on two replicas sharing one Redis", () => {
  let redis: RedisServer;
  let authorization: AuthorizationServer;
  let upstream: ProtectedMcpServer;
  let ws: Workspace;
  const replicas: HttpInProcess[] = [];
  const clients: Client[] = [];
  const tokens = { alice: "", bob: "", list: "" };

  beforeAll(async () => {
    [redis, authorization] = await Promise.all([startRedis(), startAuthorizationServer()]);
    upstream = await startProtectedMcpServer({ issuer: authorization.issuer, jwksUrl: authorization.jwksUrl });
    const audience = upstream.resource;
    tokens.alice = await authorization.mintAccessToken({ sub: "alice", audience });
    tokens.bob = await authorization.mintAccessToken({ sub: "bob", audience });
    tokens.list = await authorization.mintAccessToken({ sub: "skillport", audience });
    ws = await makeWorkspace();
    const manifest = await ws.writeManifest({
      name: "per-caller",
      skills: [],
      servers: [{ mcp: "remote", url: upstream.url, auth: { perCaller: "token", listWith: { env: "LIST_TOKEN" } } }],
      http: {
        auth: {
          tokens: [
            { name: "alice", token: { env: "ALICE_BEARER" } },
            { name: "bob", token: { env: "BOB_BEARER" } },
            { name: "carol", token: { env: "CAROL_BEARER" } },
          ],
        },
      },
      state: { store: "redis", url: { env: "REDIS_URL" } },
      credentials: { keys: [{ id: "k1", env: "SKILLPORT_CREDENTIALS_KEY" }] },
      audit: { file: "./audit.log", arguments: true },
    });
    const env = {
      LIST_TOKEN: tokens.list,
      ALICE_BEARER,
      BOB_BEARER,
      CAROL_BEARER,
      REDIS_URL: redis.url,
      SKILLPORT_CREDENTIALS_KEY: randomBytes(32).toString("base64"),
    };
    for (let i = 0; i < 2; i++) replicas.push(await httpInProcess(manifest, { env, logLevel: "debug", lock: "off" }));
    const [a, b] = replicas;
    // Each stores its token through a different replica: both read them from Redis.
    await a?.host.credentials?.vault.put("remote.token", "token:alice", {
      kind: "token",
      value: tokens.alice,
      savedAt: 1,
    });
    await b?.host.credentials?.vault.put("remote.token", "token:bob", { kind: "token", value: tokens.bob, savedAt: 1 });
    for (const replica of replicas) {
      clients.push(
        await connectAs(replica.url, ALICE_BEARER, "alice"),
        await connectAs(replica.url, BOB_BEARER, "bob"),
      );
    }
  });

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    for (const replica of replicas) await replica.close();
    await Promise.all([upstream?.close(), authorization?.close(), redis?.stop(), ws?.dispose()]);
  });

  it("sends each caller's calls with their own token only, however they interleave across the replicas", async () => {
    const whoami = async (client: Client) =>
      (await client.callTool({ name: "remote.whoami", arguments: {} })).structuredContent as Envelope;
    const answers: { caller: string; envelope: Envelope }[] = [];
    // 200 calls, ten at a time: alice on A, bob on A, alice on B, bob on B, in turn.
    for (let round = 0; round < 20; round++) {
      answers.push(
        ...(await Promise.all(
          Array.from({ length: 10 }, async (_, i) => {
            const client = clients[i % 4] as Client;
            return { caller: i % 2 === 0 ? "alice" : "bob", envelope: await whoami(client) };
          }),
        )),
      );
    }
    for (const { caller, envelope } of answers) {
      expect(envelope.ok, envelope.message).toBe(true);
      expect(JSON.stringify(envelope.data)).toContain(`"sub":"${caller}"`);
    }
    const calls = upstream.seen.filter((s) => s.token !== tokens.list);
    expect(calls.length).toBeGreaterThanOrEqual(200);
    for (const seen of calls) {
      expect([tokens.alice, tokens.bob]).toContain(seen.token);
      expect(seen.sub).toBe(seen.token === tokens.alice ? "alice" : "bob");
    }
    // The callers' own bearer tokens never reach the upstream.
    const forwarded = upstream.seen.filter((s) => [ALICE_BEARER, BOB_BEARER, CAROL_BEARER].includes(s.token));
    expect(forwarded).toEqual([]);
  });

  it("answers a caller who stored nothing CREDENTIALS_MISSING: the host's own listing token is not theirs", async () => {
    const carol = await connectAs((replicas[1] as HttpInProcess).url, CAROL_BEARER, "carol");
    clients.push(carol);
    const before = upstream.seen.length;
    const answered = (await carol.callTool({ name: "remote.whoami", arguments: {} })).structuredContent as Envelope;
    expect(answered.error?.code).toBe("CREDENTIALS_MISSING");
    // Nothing reached the upstream for her: not with the listing token, not with anyone's.
    expect(upstream.seen.length).toBe(before);
  });

  it("leaves no token in Redis, the log or the audit trail", async () => {
    const secrets = [tokens.alice, tokens.bob, tokens.list, ALICE_BEARER, BOB_BEARER, CAROL_BEARER];
    const run = promisify(execFile);
    const port = String(redis.port);
    const { stdout: keys } = await run("redis-cli", ["-p", port, "--scan"]);
    let dump = "";
    for (const key of keys.split("\n").filter((k) => k !== "")) {
      const { stdout: type } = await run("redis-cli", ["-p", port, "type", key]);
      const read = { string: ["get"], hash: ["hgetall"], set: ["smembers"], zset: ["zrange", "0", "-1"] }[type.trim()];
      if (read !== undefined)
        dump += (await run("redis-cli", ["-p", port, read[0] as string, key, ...read.slice(1)])).stdout;
    }
    expect(keys).toContain("sealed:cred:remote.token:token:alice");
    const written = [
      dump,
      ...replicas.map((r) => r.stderr()),
      await readFile(path.join(ws.dir, "audit.log"), "utf8"),
    ].join("\n");
    expect(written).toContain("token:alice"); // the callers are named: only their tokens are secret
    for (const secret of secrets) expect(written).not.toContain(secret);
  });
});

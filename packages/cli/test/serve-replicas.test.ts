// Two `skillport serve --http` processes over one manifest whose `state` names a password-protected Redis, as a
// deployment runs them: a dangerous tool's operation id replayed on the other process, then Redis killed and
// restarted under both, with the files the tool deletes as the witness of what ran.
import { access, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import type { RedisServer } from "@skillport/test-utils";
import { skipWithout, startRedis } from "@skillport/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServedHttp, Workspace } from "./workspace.js";
import { connectReplicas, makeWorkspace, REPO, serveHttp, storeState } from "./workspace.js";

const FILES_SKILL = path.join(REPO, "skills/skill-files");
const TOKEN = "alice-token-0123456789abcdef";
const REDIS_PASSWORD = "redis-password-7f3a9e1c";

type Envelope = { ok: boolean; message: string; error?: { code: string; retryable?: boolean; operationId?: string } };

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

describe.skipIf(skipWithout("redis-server"))("two skillport serve --http processes sharing one Redis", () => {
  let ws: Workspace;
  let redis: RedisServer;
  const servers: ServedHttp[] = [];
  const clients: Client[] = [];

  beforeAll(async () => {
    redis = await startRedis(["--requirepass", REDIS_PASSWORD]);
    ws = await makeWorkspace();
    await mkdir(path.join(ws.dir, "data"), { recursive: true });
    await writeFile(path.join(ws.dir, "confirm.secret"), "0123456789abcdef0123456789abcdef-replicas\n");
    const manifest = await ws.writeManifest(
      {
        skills: [{ path: FILES_SKILL, mcp: "files", config: { roots: ["./data"] }, allow: ["delete_file"] }],
        confirmation: { secret: { file: "./confirm.secret" }, fallback: "operation-id" },
        state: { store: "redis", url: { env: "REDIS_URL" } },
        http: { auth: { tokens: [{ name: "alice", token: { env: "ALICE_TOKEN" } }] } },
      },
      "replicas.manifest.json",
    );
    const env = { REDIS_URL: `redis://:${REDIS_PASSWORD}@127.0.0.1:${redis.port}/0`, ALICE_TOKEN: TOKEN };
    for (let i = 0; i < 2; i++) servers.push(serveHttp(["--manifest", manifest], ws.dir, env));
    clients.push(...(await connectReplicas(servers, "replica-caller", TOKEN)));
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    for (const server of servers) server.child.kill();
    await Promise.all(servers.map((s) => s.exit));
    await redis?.stop();
    await ws?.dispose();
  });

  async function victim(name: string): Promise<string> {
    const file = path.join(ws.dir, "data", name);
    await writeFile(file, "keep me\n");
    return file;
  }
  async function deleteFile(on: number, name: string, confirm?: string): Promise<Envelope> {
    const args = { path: name, ...(confirm === undefined ? {} : { _confirm: confirm }) };
    return (await clients[on]?.callTool({ name: "files.delete_file", arguments: args }))?.structuredContent as Envelope;
  }
  async function operationId(on: number, name: string): Promise<string> {
    const asked = await deleteFile(on, name);
    expect(asked.error?.code).toBe("CONFIRMATION_REQUIRED");
    return asked.error?.operationId ?? "";
  }

  it("takes an operation id once across both processes", async () => {
    const file = await victim("victim.txt");
    const id = await operationId(0, "victim.txt");
    expect(await deleteFile(1, "victim.txt", id)).toMatchObject({ ok: true });
    expect(await exists(file)).toBe(false);
    await victim("victim.txt");
    const replayed = await deleteFile(0, "victim.txt", id);
    expect(replayed).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED" } });
    expect(replayed.message).toContain("was already used");
    expect(await exists(file)).toBe(true);
  });

  it("refuses while Redis is down, recovers when it returns, and never deletes twice or leaks Redis's password", async () => {
    const file = await victim("outage.txt");
    const before = await operationId(0, "outage.txt");
    await redis.stop();
    const refused = await deleteFile(1, "outage.txt", before);
    expect(refused).toMatchObject({ ok: false, error: { code: "UNAVAILABLE", retryable: true } });
    expect(await exists(file)).toBe(true);
    await Promise.all(servers.map((s) => s.stderrUntil((text) => storeState(text) === "unreachable")));

    await redis.start();
    await Promise.all(servers.map((s) => s.stderrUntil((text) => storeState(text) === "reachable")));
    // Redis came back empty: the id issued before cannot be checked, so it does not run.
    expect(await deleteFile(0, "outage.txt", before)).toMatchObject({
      ok: false,
      error: { code: "PERMISSION_DENIED" },
    });
    expect(await exists(file)).toBe(true);
    const fresh = await operationId(1, "outage.txt");
    expect(await deleteFile(0, "outage.txt", fresh)).toMatchObject({ ok: true });
    expect(await exists(file)).toBe(false);

    for (const server of servers) {
      const log = server.stderr();
      expect(log).toContain("the state store cannot be reached");
      expect(log).toContain("the state store is reachable again");
      expect(log).not.toContain(REDIS_PASSWORD);
    }
    // The process that served a call during the outage counted its rate limit alone, and said so.
    expect(servers[1]?.stderr()).toContain("rate limits are counted per replica until the state store returns");
  });
});

// Whether an operation id was used is known only while Redis keeps its data; what tells a token issued before Redis
// lost it must not be anyone's clock. Two `skillport serve --http` processes share one Redis, the first with its
// clock ten minutes ahead (fixtures/clock-ahead.mjs, preloaded); Redis is killed and started again empty between
// a redemption and its replay. A fresh `skillport serve --stdio` process, the first to talk to its Redis keys,
// shows the first id a replica issues is taken. The files the tool deletes witness what ran.
import { access, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Client } from "@modelcontextprotocol/client";
import type { RedisServer } from "@skillport/test-utils";
import { skipWithout, startRedis } from "@skillport/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServedHttp, Workspace } from "./workspace.js";
import { connectReplicas, connectStdio, makeWorkspace, REPO, serveHttp, storeState } from "./workspace.js";

const FILES_SKILL = path.join(REPO, "skills/skill-files");
const CLOCK_AHEAD = fileURLToPath(new URL("./fixtures/clock-ahead.mjs", import.meta.url));
const TOKEN = "alice-token-0123456789abcdef";

type Envelope = { ok: boolean; message: string; error?: { code: string; operationId?: string } };

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

describe.skipIf(skipWithout("redis-server"))(
  "operation ids across a Redis that lost its data, whatever the replicas' clocks",
  () => {
    let ws: Workspace;
    let redis: RedisServer;
    let redisUrl: string;
    const servers: ServedHttp[] = [];
    const clients: Client[] = [];

    /** A manifest over the files skill (delete_file allowed, operation ids on), its state under `prefix` in Redis. */
    const manifestWith = (prefix: string, name: string) =>
      ws.writeManifest(
        {
          name: "clock-skew",
          version: "1.0.0",
          skills: [{ path: FILES_SKILL, mcp: "files", config: { roots: ["./data"] }, allow: ["delete_file"] }],
          confirmation: { secret: { file: "./confirm.secret" }, fallback: "operation-id" },
          state: { store: "redis", url: { env: "REDIS_URL" }, prefix },
          http: { auth: { tokens: [{ name: "alice", token: { env: "ALICE_TOKEN" } }] } },
        },
        name,
      );

    beforeAll(async () => {
      redis = await startRedis();
      redisUrl = `redis://127.0.0.1:${redis.port}/0`;
      ws = await makeWorkspace();
      await mkdir(path.join(ws.dir, "data"), { recursive: true });
      await writeFile(path.join(ws.dir, "confirm.secret"), "0123456789abcdef0123456789abcdef-clock-skew\n");
      const manifest = await manifestWith("skew:", "replicas.manifest.json");
      const env = { REDIS_URL: redisUrl, ALICE_TOKEN: TOKEN };
      const ahead = { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import=${CLOCK_AHEAD}`.trim() };
      servers.push(serveHttp(["--manifest", manifest], ws.dir, { ...env, ...ahead }));
      servers.push(serveHttp(["--manifest", manifest], ws.dir, env));
      clients.push(...(await connectReplicas(servers, "clock-skew-caller", TOKEN)));
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
    async function deleteFile(client: Client | undefined, name: string, confirm?: string): Promise<Envelope> {
      const args = { path: name, ...(confirm === undefined ? {} : { _confirm: confirm }) };
      return (await client?.callTool({ name: "files.delete_file", arguments: args }))?.structuredContent as Envelope;
    }
    async function operationId(client: Client | undefined, name: string): Promise<string> {
      const asked = await deleteFile(client, name);
      expect(asked.error?.code, asked.message).toBe("CONFIRMATION_REQUIRED");
      return asked.error?.operationId ?? "";
    }

    it("refuses an id used before Redis lost its data, issued by a replica whose clock runs ten minutes ahead", async () => {
      const [ahead, other] = clients;
      const file = await victim("skewed.txt");
      const id = await operationId(ahead, "skewed.txt");
      expect(await deleteFile(ahead, "skewed.txt", id)).toMatchObject({ ok: true });
      expect(await exists(file)).toBe(false);

      // Both see Redis go (on their next heartbeat), then come back empty.
      await redis.stop();
      await Promise.all(servers.map((s) => s.stderrUntil((text) => storeState(text) === "unreachable")));
      await redis.start();
      await Promise.all(servers.map((s) => s.stderrUntil((text) => storeState(text) === "reachable")));
      await victim("skewed.txt");
      const replayed = await deleteFile(other, "skewed.txt", id);
      expect(replayed, JSON.stringify(replayed)).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED" } });
      expect(replayed.message).toContain("issued before the shared state store");
      expect(await exists(file)).toBe(true);

      // What the replica ahead issues now, against the Redis that came back, is taken on the other.
      const fresh = await operationId(ahead, "skewed.txt");
      expect(await deleteFile(other, "skewed.txt", fresh)).toMatchObject({ ok: true });
      expect(await exists(file)).toBe(false);
    });

    it("issues no id while Redis is down: what it would be checked against cannot be known", async () => {
      const [ahead, other] = clients;
      const file = await victim("down.txt");
      await redis.stop();
      try {
        for (const client of [ahead, other]) {
          const asked = await deleteFile(client, "down.txt");
          expect(asked, JSON.stringify(asked)).toMatchObject({ ok: false, error: { code: "UNAVAILABLE" } });
          expect(asked.error?.operationId).toBeUndefined();
        }
      } finally {
        await redis.start();
      }
      // Each refused a call while Redis was down (so said it cannot reach it); each says when it is back.
      await Promise.all(servers.map((s) => s.stderrUntil((text) => storeState(text) === "reachable")));
      const id = await operationId(ahead, "down.txt");
      expect(await deleteFile(other, "down.txt", id)).toMatchObject({ ok: true });
      expect(await exists(file)).toBe(false);
    });

    it("takes the first id a fresh replica issues, before anything else talked to its store", async () => {
      const manifest = await manifestWith("fresh:", "fresh.manifest.json");
      const stdio = await connectStdio(manifest, ws.dir, { env: { REDIS_URL: redisUrl, ALICE_TOKEN: TOKEN } });
      await stdio.ready;
      try {
        const file = await victim("fresh.txt");
        const id = await operationId(stdio.client, "fresh.txt");
        const taken = await deleteFile(stdio.client, "fresh.txt", id);
        expect(taken, `${JSON.stringify(taken)}\n${stdio.stderr()}`).toMatchObject({ ok: true });
        expect(await exists(file)).toBe(false);
      } finally {
        await stdio.client.close();
      }
    });
  },
);

// A command server (stdio) called per caller: each caller's token is the API_TOKEN variable of a process of their
// own, never another caller's.
import { createHash, randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HttpInProcess } from "./in-process.js";
import { httpInProcess } from "./in-process.js";
import type { Workspace } from "./workspace.js";
import { connectAs, makeWorkspace } from "./workspace.js";

type Envelope = {
  ok: boolean;
  message: string;
  data?: { digest: string | null; pid: number };
  error?: { code: string };
};

const SERVER = fileURLToPath(new URL("./fixtures/token-env-server.mjs", import.meta.url));
const TOKENS = { alice: "alice-api-token-0123456789", bob: "bob-api-token-0123456789" };
const digest = (value: string) => createHash("sha256").update(value).digest("hex").slice(0, 16);

describe("a command server called per caller", () => {
  let ws: Workspace;
  let served: HttpInProcess;
  const clients: Record<string, Client> = {};

  beforeAll(async () => {
    ws = await makeWorkspace();
    const manifest = await ws.writeManifest({
      name: "command-per-caller",
      skills: [],
      servers: [
        {
          mcp: "cmd",
          command: process.execPath,
          args: [SERVER],
          auth: { perCaller: "token", env: "API_TOKEN", listWith: { env: "LIST_TOKEN" } },
        },
      ],
      http: {
        auth: { tokens: ["alice", "bob"].map((name) => ({ name, token: { env: `${name.toUpperCase()}_BEARER` } })) },
      },
      credentials: { keys: [{ id: "k1", env: "SKILLPORT_CREDENTIALS_KEY" }] },
      audit: { file: "./audit.log" },
    });
    served = await httpInProcess(manifest, {
      env: {
        LIST_TOKEN: "host-list-token-0123456789",
        ALICE_BEARER: "alice-bearer-0123456789",
        BOB_BEARER: "bob-bearer-0123456789",
        SKILLPORT_CREDENTIALS_KEY: randomBytes(32).toString("base64"),
      },
      lock: "off",
    });
    for (const [name, token] of Object.entries(TOKENS)) {
      await served.host.credentials?.vault.put("cmd.token", `token:${name}`, {
        kind: "token",
        value: token,
        savedAt: 1,
      });
      clients[name] = await connectAs(served.url, `${name}-bearer-0123456789`, name);
    }
  });

  afterAll(async () => {
    for (const client of Object.values(clients)) await client.close().catch(() => undefined);
    await served?.close();
    await ws?.dispose();
  });

  it("starts a process per caller, each with that caller's token only", async () => {
    const whose = async (who: string) =>
      ((await (clients[who] as Client).callTool({ name: "cmd.whose", arguments: {} })).structuredContent as Envelope)
        .data;
    const answers = await Promise.all(
      ["alice", "bob", "alice", "bob"].map(async (who) => ({ who, data: await whose(who) })),
    );
    for (const { who, data } of answers) expect(data?.digest).toBe(digest(TOKENS[who as keyof typeof TOKENS]));
    const pids = (who: string) => new Set(answers.filter((a) => a.who === who).map((a) => a.data?.pid));
    expect(pids("alice").size).toBe(1);
    expect(pids("bob").size).toBe(1);
    expect([...pids("alice")][0]).not.toBe([...pids("bob")][0]);
  });
});

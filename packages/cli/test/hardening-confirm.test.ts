import { access, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Client, JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { HttpInProcess, StdioInProcess } from "./in-process.js";
import { httpInProcess, stdioInProcess } from "./in-process.js";
import type { Workspace } from "./workspace.js";
import { connectAs, makeWorkspace, REPO, runCli } from "./workspace.js";

const FILES_SKILL = path.join(REPO, "skills/skill-files");

type Envelope = { ok: boolean; message: string; error?: { code: string; retryable?: boolean; operationId?: string } };

const ERAS = [
  { era: "2025-11-25", options: {} },
  { era: "2026-07-28", options: { versionNegotiation: { mode: { pin: "2026-07-28" } } } },
] as const;

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

/** A scratch folder with files the attacks try to delete, served by skill-files with delete_file allowed. */
async function setUp(ws: Workspace, confirmation: Record<string, unknown> = {}) {
  const root = path.join(ws.dir, "data");
  await mkdir(root, { recursive: true });
  for (const name of ["victim.txt", "victim2.txt"]) await writeFile(path.join(root, name), "keep me\n");
  return ws.writeManifest(
    {
      ...(Object.keys(confirmation).length === 0 ? {} : { confirmation }),
      skills: [{ path: FILES_SKILL, mcp: "files", config: { roots: ["./data"] }, allow: ["delete_file"] }],
    },
    "confirm.manifest.json",
  );
}

// Each attack tries to complete a dangerous tool's confirmation without the human, against the host `skillport serve`
// builds, served in this process; the files the tool deletes are the witness of what ran.
describe.each(ERAS)("confirmation under attack over stdio ($era era)", ({ era, options }) => {
  let ws: Workspace;
  let manifest: string;
  let served: StdioInProcess;
  let client: Client;
  let transport: Transport;
  const asked: string[] = [];
  let answer: "accept" | "decline" = "decline";

  beforeAll(async () => {
    ws = await makeWorkspace();
    manifest = await setUp(ws);
  });
  afterAll(() => ws.dispose());

  beforeEach(async () => {
    asked.length = 0;
    served = await stdioInProcess(manifest, {
      client: { ...options, capabilities: { elicitation: { form: {} } } },
    });
    client = served.client;
    transport = client.transport as Transport;
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.push(String((request.params as { message?: string }).message));
      return answer === "accept" ? { action: "accept", content: { confirm: true } } : { action: "decline" };
    });
  });
  afterEach(() => served.close());

  it("does not take an accept the client sends unasked on the first request: the user is asked", async () => {
    answer = "decline";
    const result = await client.request({
      method: "tools/call",
      params: {
        name: "files.delete_file",
        arguments: { path: "victim.txt" },
        inputResponses: { skillport_confirm: { action: "accept", content: { confirm: true } } },
      },
    } as never);
    expect((result as { structuredContent: Envelope }).structuredContent).toMatchObject({
      ok: false,
      error: { code: "PERMISSION_DENIED" },
    });
    expect(asked).toEqual(["files.delete_file wants to: Delete victim.txt. Allow it?"]);
    expect(await exists(path.join(ws.dir, "data/victim.txt"))).toBe(true);
  });

  it("shows bidirectional and invisible characters in the question as escapes", async () => {
    answer = "decline";
    await client.callTool({ name: "files.delete_file", arguments: { path: "txt.exe\u202Egnp.txt" } });
    expect(asked).toEqual(["files.delete_file wants to: Delete txt.exe\\u{202E}gnp.txt. Allow it?"]);
  });

  // Only the 2026 era sends the question's state to the client; in the 2025 era it never leaves the server.
  if (era === "2026-07-28") {
    it("does not let an acceptance for victim.txt delete victim2.txt: the changed call is asked anew", async () => {
      // A client that rewrites the retry: the user accepted deleting victim.txt, the retry names victim2.txt.
      const send = transport.send.bind(transport);
      transport.send = (message: JSONRPCMessage) => {
        const params = (message as { params?: { requestState?: string; arguments?: { path?: string } } }).params;
        if (params?.requestState !== undefined && params.arguments?.path === "victim.txt") {
          params.arguments.path = "victim2.txt";
          answer = "decline"; // the user is asked about victim2.txt and says no
        }
        return send(message);
      };
      answer = "accept";
      const result = await client.callTool({ name: "files.delete_file", arguments: { path: "victim.txt" } });
      expect(result.structuredContent).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED" } });
      expect(asked).toEqual([
        "files.delete_file wants to: Delete victim.txt. Allow it?",
        "files.delete_file wants to: Delete victim2.txt. Allow it?",
      ]);
      expect(await exists(path.join(ws.dir, "data/victim.txt"))).toBe(true);
      expect(await exists(path.join(ws.dir, "data/victim2.txt"))).toBe(true);
    });
  }

  it("runs once when the user accepts", async () => {
    await writeFile(path.join(ws.dir, "data/accepted.txt"), "delete me\n");
    answer = "accept";
    const result = await client.callTool({ name: "files.delete_file", arguments: { path: "accepted.txt" } });
    expect(result.structuredContent).toMatchObject({ ok: true });
    expect(await exists(path.join(ws.dir, "data/accepted.txt"))).toBe(false);
  });
});

describe("confirmation without a client that can ask its user", () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await makeWorkspace();
  });
  afterAll(() => ws.dispose());

  it("refuses by default: no operation id the model could confirm itself with", async () => {
    const manifest = await setUp(ws);
    const served = await stdioInProcess(manifest);
    const { client } = served;
    try {
      const listed = await client.listTools();
      const schema = listed.tools.find((t) => t.name === "files.delete_file")?.inputSchema;
      expect(schema?.properties).not.toHaveProperty("_confirm");
      const answer = (await client.callTool({ name: "files.delete_file", arguments: { path: "victim.txt" } }))
        .structuredContent as Envelope;
      expect(answer).toMatchObject({ ok: false, error: { code: "CONFIRMATION_REQUIRED", retryable: false } });
      expect(answer.error?.operationId).toBeUndefined();
      expect(await exists(path.join(ws.dir, "data/victim.txt"))).toBe(true);
    } finally {
      await served.close();
    }
  });

  it("skillport call asks the person at the terminal: refused without one, confirmed with --yes", async () => {
    const manifest = await setUp(ws);
    const refused = await runCli(
      ["call", "files.delete_file", '{"path":"victim.txt"}', "--manifest", manifest],
      ws.dir,
    );
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED" } });
    expect(refused.stderr).toContain("pass --yes to confirm it");
    expect(await exists(path.join(ws.dir, "data/victim.txt"))).toBe(true);
    const confirmed = await runCli(
      ["call", "files.delete_file", '{"path":"victim.txt"}', "--yes", "--manifest", manifest],
      ws.dir,
    );
    expect(confirmed.code, confirmed.stderr).toBe(0);
    expect(confirmed.stderr).toContain("confirmed with --yes: files.delete_file wants to: Delete victim.txt");
    expect(await exists(path.join(ws.dir, "data/victim.txt"))).toBe(false);
  });

  it("refuses to start with a confirmation secret an attacker could guess offline, naming the field", async () => {
    await writeFile(path.join(ws.dir, "weak.secret"), "hunter2\n");
    const manifest = await setUp(ws, { secret: { file: "./weak.secret" } });
    const run = await runCli(["serve", "--stdio", "--manifest", manifest], ws.dir);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("confirmation.secret");
    expect(run.stderr).toContain("has 7 bytes");
  });
});

describe("operation ids over HTTP (the opt-in fallback)", () => {
  let ws: Workspace;
  let served: HttpInProcess;
  let url: string;

  beforeAll(async () => {
    ws = await makeWorkspace();
    const manifest = await setUp(ws, { fallback: "operation-id" });
    const json = JSON.parse(await readFile(manifest, "utf8"));
    json.http = {
      auth: {
        tokens: [
          { name: "alice", token: { env: "ALICE_TOKEN" } },
          { name: "bob", token: { env: "BOB_TOKEN" } },
        ],
      },
    };
    await ws.writeManifest(json, "confirm.manifest.json");
    served = await httpInProcess(manifest, {
      env: { ALICE_TOKEN: "alice-token-0123456789abcdef", BOB_TOKEN: "bob-token-0123456789abcdef" },
    });
    url = served.url;
  });
  afterAll(async () => {
    await served?.close();
    await ws?.dispose();
  });

  const as = (token: string) => connectAs(url, token);

  it("does not let bob redeem the operation id issued to alice", async () => {
    const alice = await as("alice-token-0123456789abcdef");
    const bob = await as("bob-token-0123456789abcdef");
    try {
      const first = (await alice.callTool({ name: "files.delete_file", arguments: { path: "victim.txt" } }))
        .structuredContent as Envelope;
      const id = first.error?.operationId;
      expect(id).toEqual(expect.any(String));
      const stolen = (
        await bob.callTool({ name: "files.delete_file", arguments: { path: "victim.txt", _confirm: id } })
      ).structuredContent as Envelope;
      expect(stolen).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED" } });
      expect(stolen.message).toContain("was issued to another caller");
      expect(await exists(path.join(ws.dir, "data/victim.txt"))).toBe(true);
      const own = (await alice.callTool({ name: "files.delete_file", arguments: { path: "victim.txt", _confirm: id } }))
        .structuredContent as Envelope;
      expect(own).toMatchObject({ ok: true });
      expect(await exists(path.join(ws.dir, "data/victim.txt"))).toBe(false);
    } finally {
      await Promise.all([alice.close(), bob.close()]);
    }
  });
});

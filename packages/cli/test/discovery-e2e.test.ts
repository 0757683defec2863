// Discovery "search" in real processes, as MCP clients meet it: `skillport serve --stdio` and `serve --http` on an
// ephemeral loopback port, each with the SDK client. tools/list holds only the two discovery tools; search_tools finds
// files.delete_file for "delete a file"; call_tool on it asks the question a direct call asks and is refused without
// `allow`; an unknown name answers as an unknown tool with the close names; an upstream server's new tool is found
// once it announces it; over HTTP a caller without a tool's scope neither finds it nor calls it.
import { access, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServedHttp, Workspace } from "./workspace.js";
import { connectAs, connectStdio, makeWorkspace, REPO, serveHttp } from "./workspace.js";

const FILES_SKILL = path.join(REPO, "skills/skill-files");
const FIXTURE = fileURLToPath(new URL("../../client/test/fixtures/fixture-server.mjs", import.meta.url));

type Envelope = { ok: boolean; message: string; error?: { code: string; traceId?: string }; meta?: object };
type Result = { structuredContent?: unknown; isError?: boolean };

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );
const envelopeOf = (result: Result) => result.structuredContent as Envelope;
const found = (result: Result) =>
  (result.structuredContent as { data: { tools: { name: string }[] } }).data.tools.map((t) => t.name);
/** An envelope without what differs from call to call. */
const comparable = (envelope: Envelope) => ({
  ...envelope,
  meta: undefined,
  ...(envelope.error === undefined ? {} : { error: { ...envelope.error, traceId: undefined } }),
});

/**
 * The composition: skill-files twice over one folder, `files` allowed to delete and `locked` not (delete_file
 * needing the scope files:delete over HTTP), and the fixture upstream server, under discovery "search".
 */
async function setUp(ws: Workspace, extra: Record<string, unknown> = {}) {
  const data = path.join(ws.dir, "data");
  await mkdir(data, { recursive: true });
  for (const name of ["victim.txt", "kept.txt"]) await writeFile(path.join(data, name), "keep me\n");
  const scopes = { delete_file: ["files:delete"], "*": [] };
  return ws.writeManifest(
    {
      name: "discovery-e2e",
      discovery: "search",
      skills: [
        { path: FILES_SKILL, mcp: "files", config: { roots: ["./data"] }, allow: ["delete_file"], scopes },
        { path: FILES_SKILL, mcp: "locked", config: { roots: ["./data"] }, scopes },
      ],
      servers: [{ mcp: "up", command: process.execPath, args: [FIXTURE] }],
      ...extra,
    },
    "discovery.manifest.json",
  );
}

describe('discovery "search" over stdio, a real server process', () => {
  let ws: Workspace;
  let client: Client;
  const asked: string[] = [];
  let answer: "accept" | "decline" = "decline";
  let changed: () => void = () => undefined;

  beforeAll(async () => {
    ws = await makeWorkspace();
    const manifest = await setUp(ws);
    const connected = await connectStdio(manifest, ws.dir, {
      client: { capabilities: { elicitation: { form: {} } } },
    });
    client = connected.client;
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.push(String((request.params as { message?: string }).message));
      return answer === "accept" ? { action: "accept", content: { confirm: true } } : { action: "decline" };
    });
    client.setNotificationHandler("notifications/tools/list_changed", () => changed());
    await connected.ready;
  });
  afterAll(async () => {
    await client?.close();
    await ws?.dispose();
  });

  const call = (name: string, args: Record<string, unknown>) =>
    client.callTool({ name: "call_tool", arguments: { name, arguments: args } }) as Promise<Result>;
  const search = (query: string, limit = 5) =>
    client.callTool({ name: "search_tools", arguments: { query, limit } }) as Promise<Result>;

  it("lists only the two discovery tools", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["search_tools", "call_tool"]);
  });

  it('finds files.delete_file for "delete a file"', async () => {
    expect(found(await search("delete a file", 2))).toContain("files.delete_file");
  });

  it("asks the question a direct call asks, and deletes only on yes", async () => {
    answer = "decline";
    const direct = envelopeOf(
      (await client.callTool({ name: "files.delete_file", arguments: { path: "victim.txt" } })) as Result,
    );
    const through = envelopeOf(await call("files.delete_file", { path: "victim.txt" }));
    expect(asked).toHaveLength(2);
    expect(asked[1]).toBe(asked[0]);
    expect(asked[0]).toContain("victim.txt");
    expect(through.ok).toBe(false);
    expect(comparable(through)).toEqual(comparable(direct));
    expect(await exists(path.join(ws.dir, "data/victim.txt"))).toBe(true);

    answer = "accept";
    expect(envelopeOf(await call("files.delete_file", { path: "victim.txt" }))).toMatchObject({ ok: true });
    expect(asked).toHaveLength(3);
    expect(await exists(path.join(ws.dir, "data/victim.txt"))).toBe(false);
  });

  it("refuses a dangerous tool without `allow` before anyone is asked, as a direct call does", async () => {
    const before = asked.length;
    const direct = envelopeOf(
      (await client.callTool({ name: "locked.delete_file", arguments: { path: "kept.txt" } })) as Result,
    );
    const through = envelopeOf(await call("locked.delete_file", { path: "kept.txt" }));
    expect(through).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED" } });
    expect(comparable(through)).toEqual(comparable(direct));
    expect(asked).toHaveLength(before);
    expect(await exists(path.join(ws.dir, "data/kept.txt"))).toBe(true);
  });

  it("answers an unknown name as an unknown tool, naming the close ones", async () => {
    const direct = await client.callTool({ name: "files.delete_fille", arguments: {} }).catch((e: Error) => e);
    const through = await call("files.delete_fille", {}).catch((e: Error) => e);
    expect(through).toBeInstanceOf(Error);
    expect((through as Error).message).toContain('unknown tool "files.delete_fille"');
    expect((through as Error).message).toContain("files.delete_file");
    expect((through as Error).message).toBe((direct as Error).message);
  });

  it("finds the tool an upstream server adds once the server announces it", async () => {
    expect(found(await search("shred old invoices", 10))).not.toContain("up.shred_invoices");
    const announced = new Promise<void>((resolve) => {
      changed = resolve;
    });
    expect(envelopeOf(await call("up.add_tool", { name: "shred_invoices" }))).toMatchObject({ ok: true });
    await announced;
    expect(found(await search("shred old invoices"))[0]).toBe("up.shred_invoices");
  });
});

describe('discovery "search" over HTTP, a real server process', () => {
  const FULL = "full-token-0123456789abcdef";
  const NARROW = "narrow-token-0123456789abcdef";
  let ws: Workspace;
  let served: ServedHttp;
  let url: string;

  beforeAll(async () => {
    ws = await makeWorkspace();
    const http = {
      auth: {
        tokens: [
          { name: "full", scopes: ["files:delete"], token: { env: "FULL_TOKEN" } },
          { name: "narrow", scopes: [], token: { env: "NARROW_TOKEN" } },
        ],
      },
    };
    const manifest = await setUp(ws, { http });
    served = serveHttp(["--manifest", manifest], ws.dir, { FULL_TOKEN: FULL, NARROW_TOKEN: NARROW });
    url = await served.url;
  });
  afterAll(async () => {
    served?.child.kill();
    await served?.exit;
    await ws?.dispose();
  });

  const as = (token: string) => connectAs(url, token);

  it("lists the two discovery tools, and shows and runs a tool only for a caller with its scope", async () => {
    const full = await as(FULL);
    const narrow = await as(NARROW);
    try {
      expect((await narrow.listTools()).tools.map((t) => t.name)).toEqual(["search_tools", "call_tool"]);
      const query = { query: "delete a file", limit: 20 };
      expect(found((await full.callTool({ name: "search_tools", arguments: query })) as Result)).toContain(
        "files.delete_file",
      );
      const seen = found((await narrow.callTool({ name: "search_tools", arguments: query })) as Result);
      expect(seen).not.toContain("files.delete_file");
      expect(seen).not.toContain("locked.delete_file");
      expect(seen).toContain("files.read_file");

      const args = { path: "kept.txt" };
      const direct = envelopeOf((await narrow.callTool({ name: "files.delete_file", arguments: args })) as Result);
      const through = envelopeOf(
        (await narrow.callTool({
          name: "call_tool",
          arguments: { name: "files.delete_file", arguments: args },
        })) as Result,
      );
      expect(through).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED" } });
      expect(comparable(through)).toEqual(comparable(direct));
      expect(await exists(path.join(ws.dir, "data/kept.txt"))).toBe(true);
    } finally {
      await Promise.all([full.close(), narrow.close()]);
    }
  });
});

import { readFile } from "node:fs/promises";
import path from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Workspace } from "./workspace.js";
import { CLI, makeWorkspace } from "./workspace.js";

type Envelope = {
  ok: boolean;
  message: string;
  // biome-ignore lint/suspicious/noExplicitAny: each tool's data has its own shape; the assertions say which
  data?: any;
  error?: { code: string; field?: string; retryable: boolean; traceId: string };
  evidencePaths?: string[];
  meta: { traceId: string; tool: string; toolVersion: string; durationMs: number };
};

const ERAS = [
  { era: "2025-11-25 (initialize)", options: {} },
  { era: "2026-07-28 (stateless)", options: { versionNegotiation: { mode: { pin: "2026-07-28" } } } },
] as const;

describe.each(ERAS)("skillport serve --stdio, $era era, driven by the SDK client", ({ options }) => {
  let ws: Workspace;
  let client: Client;
  let transport: StdioClientTransport;
  let stderr = "";

  beforeAll(async () => {
    ws = await makeWorkspace();
    transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "serve", "--stdio", "--manifest", ws.manifest],
      cwd: ws.dir,
      stderr: "pipe",
    });
    transport.stderr?.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    client = new Client({ name: "skillport-test", version: "0.0.0" }, options as never);
    await client.connect(transport);
  });

  afterAll(async () => {
    await client?.close();
    await ws?.dispose();
  });

  async function call(name: string, args: Record<string, unknown>) {
    const result = await client.callTool({ name, arguments: args });
    const envelope = result.structuredContent as Envelope;
    expect(envelope.ok).toBe(!result.isError);
    expect(result.content).toEqual([expect.objectContaining({ type: "text" })]);
    return { result, envelope };
  }

  it("lists the notes tools with schemas, output schemas and annotations", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["notes.search_notes", "notes.read_note", "notes.create_study_task"]);
    const search = tools.find((t) => t.name === "notes.search_notes");
    expect(search?.title).toBe("Search notes");
    expect(search?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(search?.inputSchema).toMatchObject({
      type: "object",
      additionalProperties: false,
      required: ["keyword"],
      properties: {
        keyword: { type: "string", minLength: 2, maxLength: 80 },
        limit: { type: "integer", minimum: 1, maximum: 20, default: 5 },
        scope: { enum: ["ai-agent", "all-allowed"], default: "ai-agent" },
      },
    });
    expect(search?.outputSchema).toMatchObject({ type: "object", required: ["ok", "message", "meta"] });
    const create = tools.find((t) => t.name === "notes.create_study_task");
    expect(create?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    for (const tool of tools) {
      for (const [name, property] of Object.entries(tool.inputSchema.properties ?? {})) {
        expect((property as { description?: string }).description, `${tool.name}.${name}`).toBeTruthy();
      }
    }
  });

  it("calls search_notes in English and Chinese, never reaching Private/", async () => {
    const english = await call("notes.search_notes", { keyword: "AGENT", scope: "all-allowed", limit: 20 });
    expect(english.envelope.ok).toBe(true);
    const paths = english.envelope.data.hits.map((h: { path: string }) => h.path);
    expect(paths.length).toBeGreaterThan(3);
    expect(paths.some((p: string) => p.startsWith("Learning/"))).toBe(true);
    expect(paths.some((p: string) => p.startsWith("Private/"))).toBe(false);
    expect(JSON.stringify(english.result)).not.toContain("SECRET-PRIVATE-MARKER");
    expect(english.envelope.evidencePaths).toEqual(paths);
    expect(english.envelope.meta).toMatchObject({ tool: "notes.search_notes", toolVersion: "0.1.0" });

    const chinese = await call("notes.search_notes", { keyword: "智能体" });
    expect(chinese.envelope.data.hits.length).toBeGreaterThan(0);
    expect(chinese.envelope.data.hits.every((h: { path: string }) => h.path.startsWith("AI-Agent/"))).toBe(true);
    expect(chinese.envelope.data.hits.length).toBeLessThanOrEqual(5); // the default limit
  });

  it("calls read_note and create_study_task", async () => {
    const read = await call("notes.read_note", { path: "AI-Agent/mcp-basics.md" });
    expect(read.envelope.data).toMatchObject({ path: "AI-Agent/mcp-basics.md", title: "MCP basics" });
    expect(read.envelope.data.frontmatter.title).toBe("MCP basics");
    expect(read.envelope.evidencePaths).toEqual(["AI-Agent/mcp-basics.md"]);

    const created = await call("notes.create_study_task", {
      title: "Revisit MCP annotations",
      source_note: "AI-Agent/mcp-basics.md",
      due_date: "2028-02-29",
    });
    expect(created.envelope.ok).toBe(true);
    const written = await readFile(path.join(ws.vault, created.envelope.data.path), "utf8");
    expect(written).toContain("title: Revisit MCP annotations");
    expect(written).toContain("source: AI-Agent/mcp-basics.md");
    expect(written).toContain("due: 2028-02-29");
  });

  it.each([
    ["wrong type", "notes.search_notes", { keyword: 42 }, "ARGUMENT_INVALID", "/keyword"],
    ["missing required", "notes.search_notes", { limit: 3 }, "ARGUMENT_INVALID", "/keyword"],
    ["extra property", "notes.search_notes", { keyword: "agent", verbose: true }, "ARGUMENT_INVALID", "/verbose"],
    ["out of range", "notes.search_notes", { keyword: "agent", limit: 21 }, "ARGUMENT_INVALID", "/limit"],
    ["too short", "notes.search_notes", { keyword: "a" }, "ARGUMENT_INVALID", "/keyword"],
    ["unknown scope", "notes.search_notes", { keyword: "agent", scope: "Private" }, "ARGUMENT_INVALID", "/scope"],
    ["wrong type", "notes.read_note", { path: ["a.md"] }, "ARGUMENT_INVALID", "/path"],
    ["missing required", "notes.read_note", {}, "ARGUMENT_INVALID", "/path"],
    ["extra property", "notes.read_note", { path: "AI-Agent/mcp-basics.md", raw: 1 }, "ARGUMENT_INVALID", "/raw"],
    ["traversal", "notes.read_note", { path: "../../etc/passwd.md" }, "PERMISSION_DENIED", "/path"],
    ["outside every scope", "notes.read_note", { path: "Private/finances.md" }, "PERMISSION_DENIED", "/path"],
    ["absolute", "notes.read_note", { path: "/etc/hosts.md" }, "PERMISSION_DENIED", "/path"],
    ["missing note", "notes.read_note", { path: "AI-Agent/nope.md" }, "NOT_FOUND", "/path"],
    [
      "wrong type",
      "notes.create_study_task",
      { title: 7, source_note: "AI-Agent/mcp-basics.md" },
      "ARGUMENT_INVALID",
      "/title",
    ],
    ["missing required", "notes.create_study_task", { title: "x" }, "ARGUMENT_INVALID", "/source_note"],
    [
      "extra property",
      "notes.create_study_task",
      { title: "x", source_note: "AI-Agent/mcp-basics.md", when: 1 },
      "ARGUMENT_INVALID",
      "/when",
    ],
    [
      "title with a line break",
      "notes.create_study_task",
      { title: "one\n# two", source_note: "AI-Agent/mcp-basics.md" },
      "ARGUMENT_INVALID",
      "/title",
    ],
    [
      "blank title",
      "notes.create_study_task",
      { title: "   ", source_note: "AI-Agent/mcp-basics.md" },
      "ARGUMENT_INVALID",
      "/title",
    ],
    [
      "out of range",
      "notes.create_study_task",
      { title: "x".repeat(121), source_note: "AI-Agent/mcp-basics.md" },
      "ARGUMENT_INVALID",
      "/title",
    ],
    [
      "not a real date",
      "notes.create_study_task",
      { title: "x", source_note: "AI-Agent/mcp-basics.md", due_date: "2027-02-30" },
      "ARGUMENT_INVALID",
      "/due_date",
    ],
    [
      "traversal",
      "notes.create_study_task",
      { title: "x", source_note: "../Private/finances.md" },
      "PERMISSION_DENIED",
      "/source_note",
    ],
    [
      "missing source",
      "notes.create_study_task",
      { title: "x", source_note: "Learning/nope.md" },
      "NOT_FOUND",
      "/source_note",
    ],
  ])("answers %s for %s with %s at %s, and keeps serving", async (_case, name, args, code, field) => {
    const { result, envelope } = await call(name as string, args as Record<string, unknown>);
    expect(result.isError).toBe(true);
    expect(envelope.error).toMatchObject({ code, field });
    expect(envelope.error?.traceId).toBe(envelope.meta.traceId);
    expect(envelope.message).not.toMatch(/\n\s+at /); // no stack trace
    const again = await call("notes.search_notes", { keyword: "mcp" });
    expect(again.envelope.ok).toBe(true);
  });

  it("accepts the legacy argument name query for keyword, with a deprecation warning", async () => {
    const legacy = await call("notes.search_notes", { query: "agent", limit: 2 });
    expect(legacy.envelope.ok).toBe(true);
    expect(legacy.envelope.data.hits).toHaveLength(2);
    expect((legacy.envelope as unknown as { warnings: string[] }).warnings).toEqual([
      'search_notes: "query" is deprecated; send "keyword" instead',
    ]);
  });

  it("answers an unknown tool with a JSON-RPC error, not a result", async () => {
    await expect(client.callTool({ name: "notes.nope", arguments: {} })).rejects.toThrow(/unknown tool "notes.nope"/);
  });

  it("writes nothing but protocol to stdout (logs go to stderr)", async () => {
    // Every message so far parsed as JSON-RPC, or the client would have failed; stderr holds the log lines.
    expect(stderr).toContain("serving over stdio");
  });
});

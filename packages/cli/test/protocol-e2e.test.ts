import path from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import type { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Workspace } from "./workspace.js";
import { connectStdio, makeWorkspace, NOTES_SKILL, REPO, serveHttp } from "./workspace.js";

const LIBRARY = path.join(REPO, "packages/host/test/fixtures/skill-library");
const TOKEN = "e2e-library-secret-93c1f0aa";

const ERAS = [
  { era: "2025-11-25 (initialize)", options: {} },
  { era: "2026-07-28 (stateless)", options: { versionNegotiation: { mode: { pin: "2026-07-28" } } } },
] as const;

const manifest = (record: string) => ({
  name: "protocol-e2e",
  version: "1.0.0",
  skills: [
    { path: NOTES_SKILL, mcp: "notes", config: { vault: "./vault" } },
    {
      path: LIBRARY,
      mcp: "lib",
      config: { record },
      credentials: { token: { env: "E2E_LIBRARY_TOKEN" } },
      isolation: "worker",
    },
  ],
  audit: { file: "./audit.log" },
});

describe.each(ERAS)("resources, prompts, questions and logs over skillport serve --stdio, $era", ({ options }) => {
  let ws: Workspace;
  let client: Client;
  let transport: StdioClientTransport;
  let stderr = "";
  const asked: string[] = [];
  const logs: unknown[] = [];

  beforeAll(async () => {
    ws = await makeWorkspace();
    const file = await ws.writeManifest(manifest(path.join(ws.dir, "record.log")), "protocol.manifest.json");
    const connected = await connectStdio(file, ws.dir, {
      client: { ...options, capabilities: { elicitation: { form: {} }, sampling: {}, roots: {} } },
      env: { E2E_LIBRARY_TOKEN: TOKEN },
    });
    ({ client, transport } = connected);
    transport.stderr?.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.push(request.params.message);
      const content: Record<string, string> = request.params.message.startsWith("What")
        ? { name: "Stdio" }
        : { color: "blue" };
      return { action: "accept", content };
    });
    client.setRequestHandler("sampling/createMessage", async () => ({
      role: "assistant",
      content: { type: "text", text: "sampled" },
      model: "m",
    }));
    client.setRequestHandler("roots/list", async () => ({ roots: [{ uri: "file:///e2e" }] }));
    client.setNotificationHandler("notifications/message", (n) => {
      logs.push(n.params.data);
    });
    await connected.ready;
  });

  afterAll(async () => {
    await client?.close();
    await ws?.dispose();
  });

  it("lists every allowed note and the library's resources under their mcp ids, and reads them", async () => {
    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri);
    expect(uris).toEqual(
      expect.arrayContaining([
        "notes://notes/AI-Agent/mcp-basics.md",
        "lib://lib/catalog",
        "lib://lib/books/12",
        "skill://notes/notes/SKILL.md",
        "skill://lib/library/SKILL.md",
      ]),
    );
    expect(uris.some((u) => u.includes("Private"))).toBe(false);
    const note = await client.readResource({ uri: "notes://notes/AI-Agent/mcp-basics.md" });
    expect(note.contents[0]).toMatchObject({ mimeType: "text/markdown", text: expect.stringContaining("MCP") });
    const secret = await client.readResource({ uri: "lib://lib/secret" });
    expect(JSON.stringify(secret)).not.toContain(TOKEN);
  }, 30_000);

  it("refuses a note outside the allowed folders, as invalid params or a refusal, never its content", async () => {
    const error = await client.readResource({ uri: "notes://notes/Private/finances.md" }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect(String(error)).toContain("PERMISSION_DENIED");
  });

  it("renders prompts and completes their arguments", async () => {
    const rendered = await client.getPrompt({ name: "lib.summarize_book", arguments: { id: "1" } });
    expect(rendered.messages[0]?.content).toMatchObject({ type: "resource", resource: { uri: "lib://lib/books/1" } });
    const completion = await client.complete({
      ref: { type: "ref/resource", uri: "notes://notes/{+path}" },
      argument: { name: "path", value: "Learning/json" },
    });
    expect(completion.completion.values).toEqual(["Learning/json-schema.md"]);
  });

  it("asks the user, the model and the roots through the client, the capability running in its worker", async () => {
    asked.length = 0;
    const result = await client.callTool({ name: "lib.ask_name", arguments: { run: "stdio" } });
    expect(result.structuredContent).toMatchObject({ ok: true, data: { greeting: "Hello Stdio, who likes blue" } });
    expect(asked).toEqual(["What is your name?", "Favourite color?"]);
    const all = await client.callTool({ name: "lib.ask_all", arguments: {} });
    expect(all.structuredContent).toMatchObject({ ok: true, data: { reply: "sampled", roots: ["file:///e2e"] } });
  }, 30_000);

  it("keeps the tool's own content and serves the skills extension", async () => {
    const result = await client.callTool({ name: "lib.show_cover", arguments: {} });
    expect((result.content as { type: string }[]).map((c) => c.type)).toEqual([
      "text",
      "image",
      "resource_link",
      "resource",
    ]);
    const skills = await new SkillsClient(client).list();
    expect(skills.skills.map((s) => s.uri)).toEqual(["skill://lib/library/SKILL.md", "skill://notes/notes/SKILL.md"]);
  });

  it("sends the capability's log lines to a client that asked for them, redacted (2025 era: logging/setLevel)", async () => {
    if ("versionNegotiation" in options) return; // the 2026 era sends logs only to requests that carry a level
    logs.length = 0;
    await client.setLoggingLevel("info");
    await client.callTool({ name: "lib.log_steps", arguments: {} });
    expect(logs).toEqual(["step one", { message: "step two", n: 2 }, "step three [REDACTED]"]);
    expect(stderr).not.toContain(TOKEN);
  });
});

describe("resources and prompts over skillport serve --http (loopback), both eras", () => {
  let ws: Workspace;
  let served: ReturnType<typeof serveHttp>;
  let url: string;

  beforeAll(async () => {
    ws = await makeWorkspace();
    const file = await ws.writeManifest(manifest(path.join(ws.dir, "record.log")), "protocol.manifest.json");
    served = serveHttp(["--manifest", file], ws.dir, { E2E_LIBRARY_TOKEN: TOKEN });
    url = await served.url;
  }, 30_000);

  afterAll(async () => {
    served?.child.kill("SIGTERM");
    await served?.exit;
    await ws?.dispose();
  });

  it.each(ERAS)(
    "reads, renders and completes, $era",
    async ({ options }) => {
      const client = new Client({ name: "e2e-http", version: "0" }, options as never);
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      try {
        const note = await client.readResource({ uri: "notes://notes/Learning/json-schema.md" });
        expect(note.contents[0]).toMatchObject({ mimeType: "text/markdown" });
        const rendered = await client.getPrompt({ name: "lib.summarize_book", arguments: { id: "2" } });
        expect(rendered.messages).toHaveLength(2);
        const { prompts } = await client.listPrompts();
        expect(prompts.map((p) => p.name)).toEqual(["lib.summarize_book", "lib.ask_topic"]);
        const secret = await client.readResource({ uri: "lib://lib/secret" });
        expect(JSON.stringify(secret)).not.toContain(TOKEN);
      } finally {
        await client.close();
      }
    },
    30_000,
  );
});

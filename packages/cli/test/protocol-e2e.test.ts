import path from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HttpInProcess, StdioInProcess } from "./in-process.js";
import { httpInProcess, stdioInProcess } from "./in-process.js";
import type { Workspace } from "./workspace.js";
import { makeWorkspace, NOTES_SKILL, REPO } from "./workspace.js";

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

// The host `skillport serve` builds from the manifest, served in this process (the library skill in a worker).
describe.each(ERAS)("resources, prompts, questions and logs over stdio, $era", ({ options }) => {
  let ws: Workspace;
  let served: StdioInProcess;
  let client: Client;
  const asked: string[] = [];
  const logs: unknown[] = [];

  beforeAll(async () => {
    ws = await makeWorkspace();
    const file = await ws.writeManifest(manifest(path.join(ws.dir, "record.log")), "protocol.manifest.json");
    served = await stdioInProcess(file, {
      client: { ...options, capabilities: { elicitation: { form: {} }, sampling: {}, roots: {} } },
      env: { E2E_LIBRARY_TOKEN: TOKEN },
      logLevel: "debug",
    });
    client = served.client;
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
  });

  afterAll(async () => {
    await served?.close();
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
    expect(served.stderr()).toContain("step three");
    expect(served.stderr()).not.toContain(TOKEN);
  });
});

describe("resources and prompts over HTTP (loopback), both eras", () => {
  let ws: Workspace;
  let served: HttpInProcess;
  let url: string;

  beforeAll(async () => {
    ws = await makeWorkspace();
    const file = await ws.writeManifest(manifest(path.join(ws.dir, "record.log")), "protocol.manifest.json");
    served = await httpInProcess(file, { env: { E2E_LIBRARY_TOKEN: TOKEN } });
    url = served.url;
  }, 30_000);

  afterAll(async () => {
    await served?.close();
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

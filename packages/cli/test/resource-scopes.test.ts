import path from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HttpInProcess } from "./in-process.js";
import { httpInProcess } from "./in-process.js";
import type { Workspace } from "./workspace.js";
import { connectAs, makeWorkspace, NOTES_SKILL, REPO, runCli } from "./workspace.js";

// Issue 35, item 6: an instance whose tools need scopes must not hand the same data to a caller without them through
// resources, templates, prompts or completions. These tests replay it through the host `skillport serve --http`
// builds, served on a loopback port in this process with static bearer tokens, driven by the SDK client.

const LIBRARY = path.join(REPO, "packages/host/test/fixtures/skill-library");
const TOKENS = {
  NOBODY_TOKEN: "nobody-token-0123456789abcdef",
  READER_TOKEN: "reader-token-0123456789abcdef",
};
const NOTE = "AI-Agent/mcp-basics.md";

/** Tools scoped by name, as the manifest has them: nothing said about resources or prompts. */
const TOOL_SCOPES = { read_note: ["notes:read"], search_notes: ["notes:read"] };

function manifestOf(skills: unknown[]) {
  return {
    name: "scopes-test",
    version: "1.0.0",
    skills,
    http: {
      auth: {
        tokens: [
          { name: "nobody", token: { env: "NOBODY_TOKEN" } },
          { name: "reader", scopes: ["notes:read", "lib:read"], token: { env: "READER_TOKEN" } },
        ],
      },
    },
  };
}

function as(url: string, token: string): Promise<Client> {
  return connectAs(url, token, "scopes-test");
}

const errorOf = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error("expected the request to be refused");
    },
    (error: { code?: number; message?: string }) => error,
  );

describe("per-tool scopes without resource or prompt keys: resources and prompts fail closed over HTTP", () => {
  let ws: Workspace;
  let served: HttpInProcess;
  let url: string;

  beforeAll(async () => {
    ws = await makeWorkspace();
    const manifest = await ws.writeManifest(
      manifestOf([
        { path: NOTES_SKILL, mcp: "notes", config: { vault: "./vault" }, scopes: TOOL_SCOPES },
        { path: LIBRARY, scopes: { show_cover: ["lib:read"] } },
      ]),
      "closed.manifest.json",
    );
    served = await httpInProcess(manifest, { env: TOKENS });
    url = served.url;
  });
  afterAll(async () => {
    await served?.close();
    await ws?.dispose();
  });

  it.each([
    ["a caller without the tools' scope", TOKENS.NOBODY_TOKEN],
    ["a caller with them (no key says what resources need)", TOKENS.READER_TOKEN],
  ])("%s sees no note, template or prompt and is refused every read, render and completion", async (_who, token) => {
    const client = await as(url, token);
    try {
      const { resources } = await client.listResources();
      expect(resources.filter((r) => !r.uri.startsWith("skill://"))).toEqual([]);
      expect((await client.listResourceTemplates()).resourceTemplates).toEqual([]);
      expect((await client.listPrompts()).prompts).toEqual([]);

      for (const uri of [`notes://notes/${NOTE}`, "lib://library/catalog", "lib://library/books/1"]) {
        const error = await errorOf(client.readResource({ uri }));
        expect(error.message).toContain("PERMISSION_DENIED");
        expect(error.message).not.toContain("MCP (Model Context Protocol)");
      }
      const render = await errorOf(client.getPrompt({ name: "library.summarize_book", arguments: { id: "1" } }));
      expect(render.message).toContain("PERMISSION_DENIED");
      for (const ref of [
        { ref: { type: "ref/resource", uri: "notes://notes/{+path}" }, argument: { name: "path", value: "AI" } },
        { ref: { type: "ref/resource", uri: "lib://library/books/{id}" }, argument: { name: "id", value: "1" } },
        { ref: { type: "ref/prompt", name: "library.summarize_book" }, argument: { name: "id", value: "1" } },
      ] as const) {
        const error = await errorOf(client.complete(ref));
        expect(error.message).toContain("PERMISSION_DENIED");
      }
    } finally {
      await client.close();
    }
  });

  it("still refuses the tools to the caller without their scope, and lets the reader call them", async () => {
    const nobody = await as(url, TOKENS.NOBODY_TOKEN);
    const reader = await as(url, TOKENS.READER_TOKEN);
    try {
      const denied = await nobody.callTool({ name: "notes.read_note", arguments: { path: NOTE } });
      expect(denied.structuredContent).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED" } });
      const read = await reader.callTool({ name: "notes.read_note", arguments: { path: NOTE } });
      expect(read.structuredContent).toMatchObject({ ok: true });
    } finally {
      await Promise.all([nobody.close(), reader.close()]);
    }
  });

  it("keeps the skills' SKILL.md (instructions, not data) listed and readable", async () => {
    const client = await as(url, TOKENS.NOBODY_TOKEN);
    try {
      const { resources } = await client.listResources();
      const doc = resources.find((r) => r.uri === "skill://library/library/SKILL.md");
      expect(doc).toBeDefined();
      const read = await client.readResource({ uri: "skill://library/library/SKILL.md" });
      expect(read.contents[0]).toMatchObject({ mimeType: "text/markdown" });
    } finally {
      await client.close();
    }
  });

  it("skillport check warns about each instance, naming the missing key and the fix", async () => {
    const ran = await runCli(["check", "--json", "--manifest", path.join(ws.dir, "closed.manifest.json")], ws.dir);
    expect(ran.code, ran.stderr).toBe(0);
    const findings = (
      JSON.parse(ran.stdout) as { findings: { severity: string; rule: string; where: string; message: string }[] }
    ).findings.filter((f) => f.rule === "scopes-closed");
    expect(findings).toEqual([
      expect.objectContaining({ severity: "warning", where: expect.stringContaining('as "notes"') }),
      expect.objectContaining({ severity: "warning", where: expect.stringContaining('as "library"') }),
      expect.objectContaining({ severity: "warning", where: expect.stringContaining('as "library"') }),
    ]);
    expect(findings[0]?.message).toContain('"resources:*"');
    expect(findings[0]?.message).toContain("skills[0].scopes");
    expect(findings[1]?.message).toContain('"resources:*"');
    expect(findings[2]?.message).toContain('"prompts:*"');
  });
});

describe('the "resources:*" and "prompts:*" keys: what a caller needs for an instance\'s resources and prompts', () => {
  let ws: Workspace;
  let served: HttpInProcess;
  let url: string;

  beforeAll(async () => {
    ws = await makeWorkspace();
    const manifest = await ws.writeManifest(
      manifestOf([
        {
          path: NOTES_SKILL,
          mcp: "notes",
          config: { vault: "./vault" },
          scopes: { ...TOOL_SCOPES, "resources:*": ["notes:read"] },
        },
        { path: LIBRARY, scopes: { show_cover: ["lib:read"], "resources:*": ["lib:read"], "prompts:*": ["lib:read"] } },
      ]),
      "keyed.manifest.json",
    );
    served = await httpInProcess(manifest, { env: TOKENS });
    url = served.url;
  });
  afterAll(async () => {
    await served?.close();
    await ws?.dispose();
  });

  it("lets a caller holding the keys' scopes list, read, render and complete", async () => {
    const client = await as(url, TOKENS.READER_TOKEN);
    try {
      const { resources } = await client.listResources();
      expect(resources.map((r) => r.uri)).toEqual(
        expect.arrayContaining([`notes://notes/${NOTE}`, "lib://library/catalog", "lib://library/books/12"]),
      );
      expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toEqual([
        "notes://notes/{+path}",
        "lib://library/books/{id}",
      ]);
      expect((await client.listPrompts()).prompts.map((p) => p.name)).toContain("library.summarize_book");
      const note = await client.readResource({ uri: `notes://notes/${NOTE}` });
      expect(note.contents[0]).toMatchObject({ mimeType: "text/markdown", text: expect.any(String) });
      const prompt = await client.getPrompt({ name: "library.summarize_book", arguments: { id: "1" } });
      expect(prompt.messages.length).toBeGreaterThan(0);
      const completed = await client.complete({
        ref: { type: "ref/resource", uri: "notes://notes/{+path}" },
        argument: { name: "path", value: "AI-Agent/mcp-b" },
      });
      expect(completed.completion.values).toContain(NOTE);
    } finally {
      await client.close();
    }
  });

  it("hides them from a caller without those scopes and refuses its reads naming the scope", async () => {
    const client = await as(url, TOKENS.NOBODY_TOKEN);
    try {
      const { resources } = await client.listResources();
      expect(resources.filter((r) => !r.uri.startsWith("skill://"))).toEqual([]);
      expect((await client.listResourceTemplates()).resourceTemplates).toEqual([]);
      expect((await client.listPrompts()).prompts).toEqual([]);
      const error = await errorOf(client.readResource({ uri: `notes://notes/${NOTE}` }));
      expect(error.message).toContain("PERMISSION_DENIED");
      expect(error.message).toContain("notes:read");
    } finally {
      await client.close();
    }
  });

  it("skillport check has nothing to say about scopes", async () => {
    const ran = await runCli(["check", "--json", "--manifest", path.join(ws.dir, "keyed.manifest.json")], ws.dir);
    expect(ran.code, ran.stderr).toBe(0);
    const { findings } = JSON.parse(ran.stdout) as { findings: { rule: string }[] };
    expect(findings.filter((f) => f.rule.startsWith("scopes"))).toEqual([]);
  });
});

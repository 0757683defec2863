import { readFile } from "node:fs/promises";
import path from "node:path";
import { createMCPClient } from "@ai-sdk/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServedHttp, Workspace } from "./workspace.js";
import { makeWorkspace, NOTES_SKILL, serveHttp } from "./workspace.js";

// The AI SDK setup in docs/getting-started.md, against a real `skillport serve --http`: the AI SDK turns MCP tools
// into model tools keyed by their MCP names, which it then sends to the model provider as they are.
const PROVIDER_NAME = /^[A-Za-z0-9_-]{1,64}$/;

describe.each([
  { separator: ".", safe: false },
  { separator: "_", safe: true },
])('the Vercel AI SDK MCP client with "separator": "$separator"', ({ separator, safe }) => {
  let ws: Workspace;
  let served: ServedHttp;
  let url: string;

  beforeAll(async () => {
    ws = await makeWorkspace();
    const manifest = await ws.writeManifest(
      {
        name: "ai-sdk",
        version: "1.0.0",
        separator,
        skills: [{ path: NOTES_SKILL, mcp: "notes", config: { vault: "./vault" } }],
      },
      "ai.manifest.json",
    );
    served = serveHttp(["--manifest", manifest], ws.dir);
    url = await served.url;
  });
  afterAll(async () => {
    served?.child.kill("SIGKILL");
    await ws?.dispose();
  });

  it(
    safe ? "gets names every model API takes, and calls a tool" : "gets names with a dot, which model APIs refuse",
    async () => {
      const mcpClient = await createMCPClient({ transport: { type: "http", url } });
      try {
        const tools = await mcpClient.tools();
        const names = Object.keys(tools);
        expect(names).toContain(`notes${separator}search_notes`);
        expect(names.every((name) => PROVIDER_NAME.test(name))).toBe(safe);
        if (!safe) return;
        const search = tools.notes_search_notes;
        const result = (await search?.execute?.({ keyword: "agent", limit: 2 }, { toolCallId: "1", messages: [] })) as {
          structuredContent?: { ok: boolean; data: { hits: unknown[] } };
          isError?: boolean;
        };
        expect(result.isError ?? false).toBe(false);
        expect(result.structuredContent).toMatchObject({ ok: true });
        expect(result.structuredContent?.data.hits).toHaveLength(2);
      } finally {
        await mcpClient.close();
      }
    },
  );
});

it("the docs show this setup", async () => {
  const page = await readFile(path.join(import.meta.dirname, "../../../docs/getting-started.md"), "utf8");
  expect(page).toContain('import { createMCPClient } from "@ai-sdk/mcp";');
  expect(page).toContain('transport: { type: "http", url: "http://127.0.0.1:3333/mcp" }');
});

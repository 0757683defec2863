import { mkdir, readdir, stat, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScopeName, SearchNotesParams } from "../src/index.js";
import { searchNotes } from "../src/index.js";
import { makeContext } from "./context.js";
import type { VaultCopy } from "./example-vault.js";
import { copyExampleVault, PRIVATE_MARKER } from "./example-vault.js";

let vault: VaultCopy;

beforeAll(async () => {
  vault = await copyExampleVault();
});

afterAll(async () => {
  await vault?.remove();
});

async function search(
  params: Partial<SearchNotesParams> & { keyword: string },
  config: { maxNoteBytes?: number } = {},
) {
  const answer = await searchNotes(
    { limit: 5, scope: "ai-agent", ...params },
    makeContext({ vault: vault.path, ...config }),
  );
  // The message echoes the keyword, which may be the marker itself; everything drawn from notes must not hold it.
  expect(JSON.stringify([answer.data, answer.evidencePaths, answer.warnings])).not.toContain(PRIVATE_MARKER);
  for (const hit of answer.data.hits) expect(hit.path).not.toMatch(/^Private\//i);
  return answer;
}

const paths = (answer: Awaited<ReturnType<typeof search>>) => answer.data.hits.map((hit) => hit.path);

/** The Markdown files directly in the given vault folders, as vault-relative paths. */
async function notesIn(folders: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const folder of folders) {
    for (const entry of await readdir(path.join(vault.path, folder), { withFileTypes: true })) {
      if (entry.isFile() && entry.name.endsWith(".md")) found.push(`${folder}/${entry.name}`);
    }
  }
  return found;
}

describe("searchNotes on the example vault", () => {
  it("matches case-insensitively: AGENT and agent give the same hits", async () => {
    const lower = await search({ keyword: "agent", limit: 20 });
    const upper = await search({ keyword: "AGENT", limit: 20 });
    const mixed = await search({ keyword: "aGeNt", limit: 20 });
    expect(lower.data.hits.length).toBeGreaterThan(3);
    expect(upper.data.hits).toEqual(lower.data.hits);
    expect(mixed.data.hits).toEqual(lower.data.hits);
  });

  it("finds Chinese notes by Chinese keywords", async () => {
    const agents = await search({ keyword: "智能体", limit: 20 });
    expect(paths(agents)).toEqual(
      expect.arrayContaining(["AI-Agent/agent-memory-zh.md", "AI-Agent/mcp-tool-design-zh.md"]),
    );
    expect(agents.data.hits[0]?.path).toBe("AI-Agent/agent-memory-zh.md");
    expect(agents.data.hits[0]?.snippet).toContain("智能体");

    const prompts = await search({ keyword: "提示词", limit: 20 });
    expect(prompts.data.hits[0]).toMatchObject({ path: "AI-Agent/prompt-engineering-zh.md", title: "提示词工程笔记" });
  });

  it('keeps scope "ai-agent" to AI-Agent/ and widens "all-allowed" to the other allowed folders', async () => {
    const narrow = await search({ keyword: "schema", limit: 20, scope: "ai-agent" });
    expect(narrow.data.hits.length).toBeGreaterThan(0);
    for (const hitPath of paths(narrow)) expect(hitPath).toMatch(/^AI-Agent\//);

    const wide = await search({ keyword: "schema", limit: 20, scope: "all-allowed" });
    expect(paths(wide)).toEqual(expect.arrayContaining(["Learning/json-schema.md", ...paths(narrow)]));
    expect(paths(wide).some((hitPath) => hitPath.startsWith("Tasks/"))).toBe(true);
    for (const hitPath of paths(wide)) expect(hitPath).toMatch(/^(AI-Agent|Learning|Projects|Tasks)\//);
  });

  it.each<[ScopeName, string[]]>([
    ["ai-agent", ["AI-Agent"]],
    ["all-allowed", ["AI-Agent", "Learning", "Projects", "Tasks"]],
  ])("scans exactly the notes of scope %s, none of Private/", async (scope, folders) => {
    const answer = await search({ keyword: "zz-nothing-matches", scope });
    expect(answer.data.scanned).toBe((await notesIn(folders)).length);
  });

  it.each<[string, ScopeName]>([
    ["agent", "all-allowed"], // the October journal in Private/ mentions an insurance agent
    ["private", "all-allowed"],
    ["finances", "all-allowed"],
    ["journal", "all-allowed"],
    [PRIVATE_MARKER, "all-allowed"],
    [PRIVATE_MARKER, "ai-agent"],
  ])("never returns Private/ notes or their text for %j in %s", async (keyword, scope) => {
    const answer = await search({ keyword, scope, limit: 20 });
    expect(answer.evidencePaths?.some((p) => p.startsWith("Private/"))).toBe(false);
  });

  it("finds nothing for the private marker and says so", async () => {
    const answer = await search({ keyword: PRIVATE_MARKER, scope: "all-allowed", limit: 20 });
    expect(answer.data.hits).toEqual([]);
    expect(answer.evidencePaths).toEqual([]);
  });

  it("respects the limit, keeps the best hits and says how many matched", async () => {
    const all = await search({ keyword: "agent", limit: 20, scope: "all-allowed" });
    expect(all.data.hits.length).toBeGreaterThan(2);
    const top = await search({ keyword: "agent", limit: 2, scope: "all-allowed" });
    expect(top.data.hits).toEqual(all.data.hits.slice(0, 2));
    expect(top.evidencePaths).toEqual(paths(top));
    expect(top.message).toBe(`${all.data.hits.length} notes match “agent”, showing the top 2`);
  });

  it("sorts hits by score, best first", async () => {
    const answer = await search({ keyword: "agent", limit: 20, scope: "all-allowed" });
    const scores = answer.data.hits.map((hit) => hit.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(new Set(scores).size).toBeGreaterThan(1);
  });

  it("answers an empty list with a message when nothing matches", async () => {
    const answer = await search({ keyword: "xylophone-quartz", scope: "all-allowed" });
    expect(answer.data.hits).toEqual([]);
    expect(answer.data.scanned).toBeGreaterThan(0);
    expect(answer.evidencePaths).toEqual([]);
    expect(answer.message).toBe("No notes match “xylophone-quartz” in scope all-allowed");
    expect(answer.warnings).toEqual([]);
  });

  it("rejects when the call was already cancelled", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      searchNotes(
        { keyword: "agent", limit: 5, scope: "ai-agent" },
        makeContext({ vault: vault.path }, controller.signal),
      ),
    ).rejects.toMatchObject({ name: "AbortError" });
  });
});

describe("searchNotes on a vault with extra notes and links", () => {
  beforeAll(async () => {
    const write = (relative: string, text: string) => writeFile(path.join(vault.path, relative), text);
    // Title match once vs body-only match twice: the title must still win.
    await write("AI-Agent/zz-title-match.md", "---\ntitle: Quokka habits\n---\n\nNothing else here.\n");
    await write("AI-Agent/aa-body-match.md", "# Marsupials\n\nA quokka smiles. Another quokka naps.\n");
    // Links out of the allowed folders.
    await symlink("../Private/finances.md", path.join(vault.path, "AI-Agent/leak.md"));
    await symlink(path.join(vault.path, "Private/journal-2026-10.md"), path.join(vault.path, "Learning/journal.md"));
    await symlink("../Private", path.join(vault.path, "AI-Agent/private-dir"));
    const outside = path.join(vault.root, "outside");
    await mkdir(outside);
    await writeFile(path.join(outside, "outside-note.md"), `# Wombat outside\n\n${PRIVATE_MARKER} wombat\n`);
    await symlink(outside, path.join(vault.path, "Projects/outside-dir"));
    await symlink(path.join(outside, "outside-note.md"), path.join(vault.path, "Projects/outside-note.md"));
    // Over maxNoteBytes (1024) once the test sets it; "numbat" appears in both.
    await write("AI-Agent/numbat-huge.md", `# Numbat\n\n${"numbat facts. ".repeat(200)}\n`);
    await write("AI-Agent/numbat-small.md", "# Small\n\nOne numbat.\n");
  });

  it("ranks a title match above body-only matches", async () => {
    const answer = await search({ keyword: "quokka" });
    expect(answer.data.hits.map((hit) => [hit.path, hit.score])).toEqual([
      ["AI-Agent/zz-title-match.md", 3],
      ["AI-Agent/aa-body-match.md", 2],
    ]);
  });

  it.each<ScopeName>(["ai-agent", "all-allowed"])(
    "does not search notes linked from an allowed folder to Private/ (%s)",
    async (scope) => {
      for (const keyword of ["finances", "journal", "budget", "insurance", PRIVATE_MARKER]) {
        const answer = await search({ keyword, scope, limit: 20 });
        for (const hitPath of paths(answer)) {
          expect(hitPath).not.toMatch(/leak|journal\.md|private-dir/);
        }
      }
      const none = await search({ keyword: "insurance", scope, limit: 20 });
      expect(none.data.hits).toEqual([]);
    },
  );

  it("does not search notes linked from an allowed folder to outside the vault", async () => {
    const answer = await search({ keyword: "wombat", scope: "all-allowed", limit: 20 });
    expect(answer.data.hits).toEqual([]);
  });

  it("does not count the links it refused as scanned notes", async () => {
    const answer = await search({ keyword: "zz-nothing-matches", scope: "ai-agent" });
    expect(answer.data.scanned).toBe((await notesIn(["AI-Agent"])).length);
  });

  it("skips a note over maxNoteBytes with a warning and still searches the rest", async () => {
    const limit = 1024;
    const notes = await notesIn(["AI-Agent"]);
    const sizes = await Promise.all(notes.map(async (note) => (await stat(path.join(vault.path, note))).size));
    const tooBig = sizes.filter((size) => size > limit).length;
    expect(sizes[notes.indexOf("AI-Agent/numbat-huge.md")]).toBeGreaterThan(limit);

    const answer = await search({ keyword: "numbat", limit: 20 }, { maxNoteBytes: limit });
    expect(paths(answer)).toEqual(["AI-Agent/numbat-small.md"]);
    expect(answer.warnings).toEqual([`${tooBig} notes could not be read and were skipped`]);
    expect(answer.data.scanned).toBe(notes.length - tooBig);
  });
});

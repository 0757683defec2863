import { mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import type { CreateStudyTaskParams } from "../src/index.js";
import { createStudyTask, readNote } from "../src/index.js";
import { makeContext } from "./context.js";
import type { VaultCopy } from "./example-vault.js";
import { copyExampleVault, PRIVATE_MARKER, thrown } from "./example-vault.js";

let vault: VaultCopy;

beforeAll(async () => {
  vault = await copyExampleVault();
  await symlink("../Private/finances.md", path.join(vault.path, "AI-Agent/leak.md"));
});

afterAll(async () => {
  await vault?.remove();
});

function create(params: CreateStudyTaskParams, config: { tasksFolder?: string } = {}) {
  return createStudyTask(params, makeContext({ vault: vault.path, ...config }));
}

function onDisk(relative: string): Promise<string> {
  return readFile(path.join(vault.path, relative), "utf8");
}

function frontmatterOf(text: string): Record<string, unknown> {
  const match = /^---\n([\s\S]*?)\n---\n/.exec(text);
  expect(match, `no frontmatter in:\n${text}`).not.toBeNull();
  return parseYaml(match?.[1] ?? "") as Record<string, unknown>;
}

const tasks = () => readdir(path.join(vault.path, "Tasks"));

/** The file name the task gets on `date` (UTC, as `created` is). */
const nameOn = (date: Date, slug: string) => `${date.toISOString().slice(0, 10)}-${slug}.md`;

describe("createStudyTask", () => {
  it("writes a task note under Tasks/ with YAML frontmatter", async () => {
    const answer = await create({
      title: "Review the MCP tool annotations",
      source_note: "AI-Agent/mcp-basics.md",
      due_date: "2026-12-15",
    });
    const { data } = answer;
    expect(data.path).toMatch(/^Tasks\/\d{4}-\d{2}-\d{2}-review-the-mcp-tool-annotations\.md$/);
    expect(data.path.slice("Tasks/".length, "Tasks/".length + 10)).toBe(data.created.slice(0, 10));
    expect(data).toMatchObject({
      title: "Review the MCP tool annotations",
      source: "AI-Agent/mcp-basics.md",
      due: "2026-12-15",
    });
    expect(new Date(data.created).toISOString()).toBe(data.created);
    expect(answer.evidencePaths).toEqual([data.path, "AI-Agent/mcp-basics.md"]);
    expect(answer.message).toContain(data.path);

    const text = await onDisk(data.path);
    expect(frontmatterOf(text)).toEqual({
      title: "Review the MCP tool annotations",
      source: "AI-Agent/mcp-basics.md",
      due: "2026-12-15",
      created: data.created,
      type: "study-task",
    });
    expect(text).toContain("# Review the MCP tool annotations");
    expect(text).toContain("[[AI-Agent/mcp-basics.md]] (MCP basics)");
  });

  it("writes a note read_note can read back", async () => {
    const { data } = await create({ title: "Read back", source_note: "Learning/json-schema.md" });
    const back = await readNote({ path: data.path }, makeContext({ vault: vault.path }));
    expect(back.data.title).toBe("Read back");
    expect(back.data.frontmatter).toMatchObject({ source: "Learning/json-schema.md", type: "study-task" });
  });

  it("writes due: null when no due date is given", async () => {
    const { data } = await create({ title: "No deadline", source_note: "AI-Agent/mcp-basics.md" });
    expect(data.due).toBeNull();
    const frontmatter = frontmatterOf(await onDisk(data.path));
    expect(frontmatter).toHaveProperty("due", null);
  });

  it("never overwrites: the same title twice gives two files and the first is unchanged", async () => {
    const params = { title: "Twice the same", source_note: "AI-Agent/mcp-basics.md" };
    const first = await create(params);
    const firstText = await onDisk(first.data.path);
    const second = await create({ ...params, due_date: "2027-01-01" });
    expect(second.data.path).not.toBe(first.data.path);
    expect(second.data.path).toBe(first.data.path.replace(/\.md$/, "-2.md"));
    expect(await onDisk(first.data.path)).toBe(firstText);
    expect(frontmatterOf(await onDisk(second.data.path))).toMatchObject({ due: "2027-01-01" });
  });

  it("does not overwrite a file that already has the target name", async () => {
    const slug = "pre-existing-name";
    const today = new Date();
    const tomorrow = new Date(today.getTime() + 24 * 60 * 60 * 1000);
    // Both dates, so the test holds if the call runs just after midnight UTC.
    const taken = [nameOn(today, slug), nameOn(tomorrow, slug)];
    for (const name of taken) await writeFile(path.join(vault.path, "Tasks", name), `keep me: ${name}\n`);

    const { data } = await create({ title: "Pre-existing name", source_note: "AI-Agent/mcp-basics.md" });
    expect(data.path).toBe(`Tasks/${data.created.slice(0, 10)}-${slug}-2.md`);
    for (const name of taken) expect(await onDisk(`Tasks/${name}`)).toBe(`keep me: ${name}\n`);
  });

  it("keeps a Chinese title's characters in the file name", async () => {
    const { data } = await create({ title: "复习智能体记忆设计", source_note: "AI-Agent/agent-memory-zh.md" });
    expect(data.path).toMatch(/^Tasks\/\d{4}-\d{2}-\d{2}-复习智能体记忆设计\.md$/);
    expect(await tasks()).toContain(path.basename(data.path));
    expect(frontmatterOf(await onDisk(data.path))).toMatchObject({ title: "复习智能体记忆设计" });
  });

  it("turns punctuation into dashes in the file name and keeps the exact title in the frontmatter", async () => {
    const title = 'Why: "quotes", #hashes & --- dashes?';
    const { data } = await create({ title, source_note: "AI-Agent/mcp-basics.md" });
    expect(path.basename(data.path)).toMatch(/^\d{4}-\d{2}-\d{2}-why-quotes-hashes-dashes\.md$/);
    expect(frontmatterOf(await onDisk(data.path))).toMatchObject({ title });
  });

  it("names a title with no letters or digits 'task'", async () => {
    const { data } = await create({ title: "!!!", source_note: "AI-Agent/mcp-basics.md" });
    expect(path.basename(data.path)).toMatch(/^\d{4}-\d{2}-\d{2}-task(-\d+)?\.md$/);
  });

  it("normalises the source note's path", async () => {
    const { data } = await create({ title: "Normalised source", source_note: "./AI-Agent\\mcp-basics.md" });
    expect(data.source).toBe("AI-Agent/mcp-basics.md");
    expect(frontmatterOf(await onDisk(data.path))).toMatchObject({ source: "AI-Agent/mcp-basics.md" });
  });

  it("answers NOT_FOUND on /source_note for a missing source note, writing nothing", async () => {
    const before = await tasks();
    const error = await thrown(() => create({ title: "Ghost", source_note: "AI-Agent/no-such-note.md" }));
    expect(error).toMatchObject({ name: "SkillError", code: "NOT_FOUND", field: "/source_note" });
    expect(await tasks()).toEqual(before);
  });

  it.each([
    "Private/finances.md",
    "AI-Agent/../Private/finances.md",
    "AI-Agent/leak.md", // a link to Private/finances.md
  ])("answers PERMISSION_DENIED on /source_note for %j, writing nothing", async (sourceNote) => {
    const before = await tasks();
    const error = await thrown(() => create({ title: "Leak", source_note: sourceNote }));
    expect(error).toMatchObject({ name: "SkillError", code: "PERMISSION_DENIED", field: "/source_note" });
    expect(await tasks()).toEqual(before);
    const written = await Promise.all(before.map((name) => onDisk(`Tasks/${name}`)));
    for (const text of written) expect(text).not.toContain(PRIVATE_MARKER);
  });

  it("creates the tasks folder when it does not exist yet", async () => {
    const { data } = await create(
      { title: "Fresh folder", source_note: "AI-Agent/mcp-basics.md" },
      { tasksFolder: "Inbox/Study" },
    );
    expect(data.path).toMatch(/^Inbox\/Study\/\d{4}-\d{2}-\d{2}-fresh-folder\.md$/);
    expect(await onDisk(data.path)).toContain("# Fresh folder");
  });

  it("refuses a tasks folder linked outside the vault, writing nothing there", async () => {
    const outside = path.join(vault.root, "outside-tasks");
    await mkdir(outside);
    await symlink(outside, path.join(vault.path, "LinkedTasks"));
    const error = await thrown(() =>
      create({ title: "Escape", source_note: "AI-Agent/mcp-basics.md" }, { tasksFolder: "LinkedTasks" }),
    );
    expect(error).toMatchObject({ name: "SkillError", code: "PERMISSION_DENIED" });
    expect(await readdir(outside)).toEqual([]);
  });

  it("refuses a tasks folder outside the vault before creating anything", async () => {
    const error = await thrown(() =>
      create({ title: "Escape", source_note: "AI-Agent/mcp-basics.md" }, { tasksFolder: "../escaped-tasks" }),
    );
    expect(error).toMatchObject({ name: "SkillError", code: "PERMISSION_DENIED" });
    await expect(readdir(path.join(vault.root, "escaped-tasks"))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("keeps a character outside the BMP whole when it cuts a long title's file name", async () => {
    const { data } = await create({ title: `${"a".repeat(59)}𠀀 tail`, source_note: "AI-Agent/mcp-basics.md" });
    expect(data.path).toMatch(/-a{59}𠀀\.md$/);
    expect(encodeURIComponent(data.path)).toBeTypeOf("string"); // throws URIError on a lone surrogate
    expect(await onDisk(data.path)).toContain("𠀀 tail");
  });

  it("rejects when the call was already cancelled, writing nothing", async () => {
    const before = await tasks();
    const controller = new AbortController();
    controller.abort();
    await expect(
      createStudyTask(
        { title: "Cancelled", source_note: "AI-Agent/mcp-basics.md" },
        makeContext({ vault: vault.path }, controller.signal),
      ),
    ).rejects.toMatchObject({ name: "AbortError" });
    expect(await tasks()).toEqual(before);
  });
});

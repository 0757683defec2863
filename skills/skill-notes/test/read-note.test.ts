import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { isSkillError } from "@skillport/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readNote } from "../src/index.js";
import { makeContext } from "./context.js";
import type { VaultCopy } from "./example-vault.js";
import { copyExampleVault, PRIVATE_MARKER, thrown } from "./example-vault.js";

let vault: VaultCopy;

beforeAll(async () => {
  vault = await copyExampleVault();
  // Links made for the symlink cases; each is reached only through its own path.
  await symlink("../Private/finances.md", path.join(vault.path, "AI-Agent/leak.md"));
  await symlink(path.join(vault.path, "Private/medical.md"), path.join(vault.path, "Learning/absolute-leak.md"));
  await symlink("../Private", path.join(vault.path, "Projects/private-dir"));
  const outside = path.join(vault.root, "outside");
  await mkdir(outside);
  await writeFile(path.join(outside, "x.md"), `# Outside\n\n${PRIVATE_MARKER}\n`);
  await symlink(outside, path.join(vault.path, "AI-Agent/outside"));
  await symlink("../Learning/json-schema.md", path.join(vault.path, "AI-Agent/alias.md"));
  await symlink("mcp-basics.md", path.join(vault.path, "AI-Agent/same-folder-alias.md"));
  await symlink("does-not-exist.md", path.join(vault.path, "AI-Agent/dangling.md"));
});

afterAll(async () => {
  await vault?.remove();
});

/** Reads a note and checks that no successful answer ever carries private text. */
async function read(notePath: string) {
  const answer = await readNote({ path: notePath }, makeContext({ vault: vault.path }));
  expect(JSON.stringify(answer)).not.toContain(PRIVATE_MARKER);
  return answer;
}

async function refusal(notePath: string) {
  const error = await thrown(() => read(notePath));
  expect(isSkillError(error), String(error)).toBe(true);
  return error;
}

describe("readNote refuses paths outside the allowed folders", () => {
  it.each([
    // ".." in many forms
    "../x.md",
    "../../x.md",
    "../Private/finances.md",
    "AI-Agent/../../x.md",
    "AI-Agent/../Private/finances.md",
    "AI-Agent/../AI-Agent/mcp-basics.md",
    "AI-Agent/sub/../../Private/finances.md",
    "AI-Agent/mcp-basics.md/../../Private/finances.md",
    "Learning/../Private/medical.md",
    "Private/../AI-Agent/mcp-basics.md",
    "AI-Agent//..//Private/finances.md",
    "./../x.md",
    "AI-Agent/./../../x.md",
    "..\\Private\\finances.md",
    "AI-Agent\\..\\..\\x.md",
    "AI-Agent\\..\\Private\\finances.md",
    "AI-Agent/..\\Private/finances.md",
    // URL encoding is not decoded: the encoded name is a literal first segment, which is no allowed folder
    "%2e%2e/Private/finances.md",
    "%2e%2e%2fPrivate%2ffinances.md",
    "..%2fPrivate%2ffinances.md",
    "%2E%2E/%2E%2E/x.md",
    // absolute paths, POSIX and Windows
    "/etc/passwd.md",
    "/AI-Agent/mcp-basics.md",
    "//server/share/x.md",
    "C:\\Windows\\x.md",
    "c:/x.md",
    "C:x.md",
    "\\\\server\\share\\x.md",
    "\\Private\\finances.md",
    // NUL bytes
    "AI-Agent/mcp-basics.md\0.txt",
    "AI-Agent/mcp-basics.md\0",
    "\0../Private/finances.md",
    // folders out of scope, in any spelling
    "Private/finances.md",
    "./Private/finances.md",
    "Private\\finances.md",
    "private/finances.md",
    "PRIVATE/finances.md",
    "Privat/x.md",
    "Other/x.md",
    "ai-agent/mcp-basics.md",
    "AI-Agent-evil/x.md",
    " AI-Agent/mcp-basics.md",
    "~/x.md",
    ".../Private/finances.md",
    "file:///etc/passwd.md",
    // notes at the vault root
    "finances.md",
    "README.md",
    "AI-Agent.md",
  ])("%j → PERMISSION_DENIED on /path", async (hostile) => {
    expect(await refusal(hostile)).toMatchObject({ code: "PERMISSION_DENIED", field: "/path", retryable: false });
  });

  it("refuses the absolute path of an allowed note", async () => {
    const absolute = path.join(vault.path, "AI-Agent/mcp-basics.md");
    expect(await refusal(absolute)).toMatchObject({ code: "PERMISSION_DENIED", field: "/path" });
  });

  it("treats an encoded '..' inside an allowed folder as a literal folder name, which does not exist", async () => {
    expect(await refusal("AI-Agent/%2e%2e/Private/finances.md")).toMatchObject({ code: "NOT_FOUND", field: "/path" });
  });

  it("says why in the message and never echoes the note's content", async () => {
    const error = (await refusal("AI-Agent/../Private/finances.md")) as Error;
    expect(error.message).toContain('leaves its folder with ".."');
    expect(error.message).toContain("AI-Agent/");
    expect(error.message).not.toContain(PRIVATE_MARKER);
  });
});

describe("readNote and symlinks", () => {
  it("refuses a note linked to a Private note", async () => {
    expect(await refusal("AI-Agent/leak.md")).toMatchObject({ code: "PERMISSION_DENIED", field: "/path" });
  });

  it("refuses a note linked by absolute path to a Private note", async () => {
    expect(await refusal("Learning/absolute-leak.md")).toMatchObject({ code: "PERMISSION_DENIED", field: "/path" });
  });

  it("refuses a note reached through a folder linked to Private/", async () => {
    expect(await refusal("Projects/private-dir/finances.md")).toMatchObject({
      code: "PERMISSION_DENIED",
      field: "/path",
    });
  });

  it("refuses a note reached through a folder linked outside the vault", async () => {
    expect(await refusal("AI-Agent/outside/x.md")).toMatchObject({ code: "PERMISSION_DENIED", field: "/path" });
  });

  it("follows a link to a note in another allowed folder", async () => {
    const answer = await read("AI-Agent/alias.md");
    expect(answer.data.path).toBe("AI-Agent/alias.md");
    expect(answer.data.title).toBe("JSON Schema");
    expect(answer.data.content).toBe(await readFile(path.join(vault.path, "Learning/json-schema.md"), "utf8"));
  });

  it("follows a link to a note in the same folder", async () => {
    const answer = await read("AI-Agent/same-folder-alias.md");
    expect(answer.data.title).toBe("MCP basics");
  });

  it("refuses a dangling link: where it leads cannot be checked", async () => {
    expect(await refusal("AI-Agent/dangling.md")).toMatchObject({
      code: "PERMISSION_DENIED",
      field: "/path",
      message: expect.stringContaining("broken symbolic link"),
    });
  });
});

describe("readNote answers", () => {
  it("returns the content, frontmatter as plain JSON, title and evidence", async () => {
    const answer = await read("AI-Agent/mcp-basics.md");
    const onDisk = await readFile(path.join(vault.path, "AI-Agent/mcp-basics.md"), "utf8");
    expect(answer.data).toEqual({
      path: "AI-Agent/mcp-basics.md",
      title: "MCP basics",
      content: onDisk,
      frontmatter: { title: "MCP basics", tags: ["mcp", "agents", "tools"], created: "2026-09-02" },
    });
    expect(JSON.parse(JSON.stringify(answer.data.frontmatter))).toEqual(answer.data.frontmatter);
    expect(answer.evidencePaths).toEqual(["AI-Agent/mcp-basics.md"]);
    expect(answer.message).toContain("MCP basics");
  });

  it("reads a note whose file name starts with two dots (it is inside its folder)", async () => {
    await writeFile(path.join(vault.path, "AI-Agent/..draft.md"), "# Draft\n\nStill inside.\n");
    const answer = await read("AI-Agent/..draft.md");
    expect(answer.data.title).toBe("Draft");
  });

  it("takes the title of a note without frontmatter from its first heading", async () => {
    const answer = await read("AI-Agent/agent-loop-failure-modes.md");
    expect(answer.data.title).toBe("Agent loop failure modes");
    expect(answer.data.frontmatter).toEqual({});
    expect(answer.data.content.startsWith("# Agent loop failure modes\n")).toBe(true);
  });

  it("reads Chinese notes", async () => {
    const answer = await read("AI-Agent/prompt-engineering-zh.md");
    expect(answer.data.title).toBe("提示词工程笔记");
    expect(answer.data.frontmatter.tags).toEqual(["提示词", "llm", "prompt-engineering"]);
  });

  it.each(["Learning/json-schema.md", "Projects/home-lab.md", "Tasks/2026-11-20-review-json-schema-keywords.md"])(
    "reads %s in the other allowed folders",
    async (notePath) => {
      const answer = await read(notePath);
      expect(answer.data.path).toBe(notePath);
      expect(answer.data.content).toBe(await readFile(path.join(vault.path, notePath), "utf8"));
    },
  );

  it.each([
    ["./AI-Agent/mcp-basics.md", "AI-Agent/mcp-basics.md"],
    ["AI-Agent//mcp-basics.md", "AI-Agent/mcp-basics.md"],
    ["AI-Agent/./mcp-basics.md", "AI-Agent/mcp-basics.md"],
    ["AI-Agent\\mcp-basics.md", "AI-Agent/mcp-basics.md"],
  ])("normalises %j to %j", async (requested, normalised) => {
    const answer = await read(requested);
    expect(answer.data.path).toBe(normalised);
    expect(answer.evidencePaths).toEqual([normalised]);
  });

  it("answers NOT_FOUND for a missing note", async () => {
    expect(await refusal("AI-Agent/no-such-note.md")).toMatchObject({
      code: "NOT_FOUND",
      field: "/path",
      message: expect.stringContaining("AI-Agent/no-such-note.md"),
    });
  });

  it.each(["AI-Agent/mcp-basics.txt", "AI-Agent/mcp-basics", "AI-Agent", "AI-Agent/", "AI-Agent/mcp-basics.md.bak"])(
    "answers ARGUMENT_INVALID for %j, which is not a Markdown path",
    async (notPath) => {
      expect(await refusal(notPath)).toMatchObject({ code: "ARGUMENT_INVALID", field: "/path", retryable: true });
    },
  );

  it("refuses a note over maxNoteBytes", async () => {
    const big = path.join(vault.path, "AI-Agent/big-note.md");
    await writeFile(big, `# Big\n\n${"x".repeat(4096)}\n`);
    const error = await thrown(() =>
      readNote({ path: "AI-Agent/big-note.md" }, makeContext({ vault: vault.path, maxNoteBytes: 1024 })),
    );
    expect(error).toMatchObject({ code: "PERMISSION_DENIED", message: expect.stringContaining("maxNoteBytes") });
  });

  it("rejects at once when the call was already cancelled", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      readNote({ path: "AI-Agent/mcp-basics.md" }, makeContext({ vault: vault.path }, controller.signal)),
    ).rejects.toMatchObject({ name: "AbortError" });
  });
});

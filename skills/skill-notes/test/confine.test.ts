import { execFileSync } from "node:child_process";
import { constants } from "node:fs";
import { mkdir, open, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { isSkillError } from "@skillport/core";
import type { HostileTree } from "@skillport/core/confine/testing";
import { CANARY, HOSTILE_PATHS, hostilePath, makeHostileTree } from "@skillport/core/confine/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readNote, searchNotes } from "../src/index.js";
import { makeContext } from "./context.js";
import type { VaultCopy } from "./example-vault.js";
import { copyExampleVault, PRIVATE_MARKER, thrown } from "./example-vault.js";

/** Bounds a call that hangs on the old code (open() on a FIFO); the test then fails, it measures nothing. */
const HANG = 20_000;

describe("FIFOs named like notes", () => {
  let vault: VaultCopy;
  const fifos: string[] = [];

  beforeAll(async () => {
    vault = await copyExampleVault();
    for (let i = 0; i < 6; i++) fifos.push(path.join(vault.path, "AI-Agent", `pipe-${i}.md`));
    for (const fifo of fifos) execFileSync("mkfifo", [fifo]);
    await symlink("pipe-0.md", path.join(vault.path, "AI-Agent", "link-to-pipe.md"));
  });

  afterAll(async () => {
    // Should a reader still wait in open() (the old code), a writer that opens and closes each FIFO releases it.
    for (const fifo of fifos) {
      const writer = await open(fifo, constants.O_WRONLY | constants.O_NONBLOCK).catch(() => undefined);
      await writer?.close();
    }
    await vault?.remove();
  });

  it(
    "answer read_note with ARGUMENT_INVALID, more at once than libuv has threads, and reads go on",
    async () => {
      const ctx = makeContext({ vault: vault.path });
      const errors = await Promise.all(
        [...fifos.map((f) => `AI-Agent/${path.basename(f)}`), "AI-Agent/link-to-pipe.md"].map((p) =>
          thrown(() => readNote({ path: p }, ctx)),
        ),
      );
      for (const error of errors) {
        expect(error).toMatchObject({ code: "ARGUMENT_INVALID", field: "/path" });
        expect((error as Error).message).toContain("not a regular file");
      }
      const after = await readNote({ path: "AI-Agent/mcp-basics.md" }, ctx);
      expect(after.data.title).toBe("MCP basics");
    },
    HANG,
  );

  it(
    "are skipped by search_notes, which still answers",
    async () => {
      const answer = await searchNotes(
        { keyword: "mcp", limit: 5, scope: "ai-agent" },
        makeContext({ vault: vault.path }),
      );
      expect(answer.data.hits.length).toBeGreaterThan(0);
      expect(answer.data.hits.map((h) => h.path)).not.toContain("AI-Agent/link-to-pipe.md");
    },
    HANG,
  );
});

describe("a scope folder that is itself a link out of the vault", () => {
  let vault: VaultCopy;

  beforeAll(async () => {
    vault = await copyExampleVault();
    const outside = path.join(vault.root, "elsewhere");
    await mkdir(outside);
    await writeFile(path.join(outside, "stolen.md"), `# Stolen\n\n${PRIVATE_MARKER} quokka\n`);
    await symlink(outside, path.join(vault.path, "Linked"));
  });

  afterAll(async () => {
    await vault?.remove();
  });

  const ctx = () =>
    makeContext({ vault: vault.path, scopes: { "ai-agent": ["AI-Agent"], "all-allowed": ["AI-Agent", "Linked"] } });

  it("is refused by read_note (PERMISSION_DENIED), as search_notes refuses it", async () => {
    const error = await thrown(() => readNote({ path: "Linked/stolen.md" }, ctx()));
    expect(error).toMatchObject({ code: "PERMISSION_DENIED", field: "/path" });
    expect((error as Error).message).not.toContain(PRIVATE_MARKER);
    const search = await searchNotes({ keyword: "quokka", limit: 5, scope: "all-allowed" }, ctx());
    expect(search.data.hits).toEqual([]);
  });

  it("leaves the other scope folders readable", async () => {
    expect((await readNote({ path: "AI-Agent/mcp-basics.md" }, ctx())).data.title).toBe("MCP basics");
  });
});

describe("the shared hostile-path corpus through read_note", () => {
  let tree: HostileTree;

  beforeAll(async () => {
    tree = await makeHostileTree();
  });

  afterAll(async () => {
    await tree?.dispose();
  });

  it.each(HOSTILE_PATHS.map((entry) => [entry.label, entry] as const))("refuses %s", async (_label, entry) => {
    const p = hostilePath(entry, tree);
    const ctx = makeContext({ vault: tree.root, scopes: { "ai-agent": ["sub"], "all-allowed": ["."] } });
    const error = await thrown(() => readNote({ path: p }, ctx));
    expect(isSkillError(error), String(error)).toBe(true);
    // A path that is no Markdown note may be refused for that first.
    const codes = p.toLowerCase().endsWith(".md") ? [entry.code] : [entry.code, "ARGUMENT_INVALID"];
    expect(codes, (error as Error).message).toContain((error as { code: string }).code);
    expect((error as { field: string }).field).toBe("/path");
    expect((error as Error).message).not.toContain(CANARY);
  });

  it("reads what is inside, and search finds nothing from outside", async () => {
    const ctx = makeContext({ vault: tree.root, scopes: { "ai-agent": ["sub"], "all-allowed": ["."] } });
    expect((await readNote({ path: "notes.md" }, ctx)).data.title).toBe("Notes");
    const search = await searchNotes({ keyword: "secret", limit: 20, scope: "all-allowed" }, ctx);
    expect(JSON.stringify(search)).not.toContain(CANARY);
  });
});

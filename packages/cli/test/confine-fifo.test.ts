import { execFileSync } from "node:child_process";
import { constants } from "node:fs";
import { mkdir, open } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StdioServer } from "./confine-server.js";
import { FILES_SKILL, NOTES_SKILL_DIR, serveStdio } from "./confine-server.js";
import type { Workspace } from "./workspace.js";
import { makeWorkspace } from "./workspace.js";

/** More FIFOs than libuv has threads (4 by default): the old open() blocked one thread each. */
const FIFOS = 6;
/** Bounds a call that would hang on the old code; the test fails then, it measures nothing. */
const HANG = 30_000;

let ws: Workspace;
let server: StdioServer;
const fifos: string[] = [];

beforeAll(async () => {
  ws = await makeWorkspace();
  const root = path.join(ws.dir, "files");
  await mkdir(root);
  for (let i = 0; i < FIFOS; i++) fifos.push(path.join(ws.vault, "AI-Agent", `pipe-${i}.md`));
  fifos.push(path.join(root, "pipe.txt"));
  for (const fifo of fifos) execFileSync("mkfifo", [fifo]);
  server = await serveStdio(ws.dir, {
    skills: [
      { path: NOTES_SKILL_DIR, mcp: "notes", config: { vault: "./vault" } },
      { path: FILES_SKILL, mcp: "files", config: { roots: ["./files", "./vault"] } },
    ],
  });
});

afterAll(async () => {
  // Should a reader still wait in open() (the old code), a writer that opens and closes each FIFO releases it.
  for (const fifo of fifos) {
    const writer = await open(fifo, constants.O_WRONLY | constants.O_NONBLOCK).catch(() => undefined);
    await writer?.close();
  }
  await server?.close();
  await ws?.dispose();
});

describe("skillport serve --stdio with FIFOs named like notes and files", () => {
  it("answers read_note on each FIFO, all at once, with ARGUMENT_INVALID instead of hanging", async () => {
    const answers = await Promise.all(
      fifos
        .slice(0, FIFOS)
        .map((fifo) => server.call("notes.read_note", { path: `AI-Agent/${path.basename(fifo)}` }, HANG)),
    );
    for (const answer of answers) {
      expect(answer.ok).toBe(false);
      expect(answer.error).toMatchObject({ code: "ARGUMENT_INVALID", field: "/path" });
      expect(answer.message).toContain("not a regular file");
    }
  });

  it("answers files.read_file on a FIFO with ARGUMENT_INVALID", async () => {
    const answer = await server.call("files.read_file", { path: "pipe.txt" }, HANG);
    expect(answer.error).toMatchObject({ code: "ARGUMENT_INVALID", field: "/path" });
    expect(answer.message).toContain("not a regular file");
  });

  it("still answers every other call afterwards: the server's file threads are free", async () => {
    const read = await server.call("notes.read_note", { path: "AI-Agent/mcp-basics.md" }, HANG);
    expect(read).toMatchObject({ ok: true, data: { title: "MCP basics" } });
    const search = await server.call("notes.search_notes", { keyword: "agent", scope: "all-allowed" }, HANG);
    expect(search.ok).toBe(true);
    expect(search.data.hits.length).toBeGreaterThan(0);
    const file = await server.call(
      "files.read_file",
      { path: path.join(ws.vault, "AI-Agent/mcp-basics.md"), max_bytes: 64 },
      HANG,
    );
    expect(file.ok, file.message).toBe(true);
    const listing = await server.call("files.list_directory", { path: "." }, HANG);
    expect(listing.data.entries.map((e: { path: string }) => e.path)).toContain("pipe.txt");
  });
});

import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { HostileTree } from "@skillport/core/confine/testing";
import { CANARY, makeHostileTree, startSwapper } from "@skillport/core/confine/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StdioServer } from "./confine-server.js";
import { FILES_SKILL, serveStdio } from "./confine-server.js";

/** Rounds of calls while the swapper runs, over two phases; each round is six calls. */
const ROUNDS = 160;

let tree: HostileTree;
let server: StdioServer;

beforeAll(async () => {
  tree = await makeHostileTree();
  await mkdir(path.join(tree.root, "race"));
  await writeFile(path.join(tree.root, "race", "f.txt"), "inside\n");
  await writeFile(path.join(tree.outside, "f.txt"), `${CANARY} f\n`);
  await writeFile(path.join(tree.outside, "victim.txt"), `${CANARY} victim\n`);
  server = await serveStdio(tree.base, {
    skills: [{ path: FILES_SKILL, mcp: "files", config: { roots: ["./root"] } }],
  });
});

afterAll(async () => {
  await server?.close();
  await tree?.dispose();
});

async function outsideState(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(tree.outside, { recursive: true, withFileTypes: true })) {
    const full = path.join(entry.parentPath, entry.name);
    out[path.relative(tree.outside, full)] = entry.isFile()
      ? createHash("sha256")
          .update(await readFile(full))
          .digest("hex")
      : "other";
  }
  return out;
}

describe("skillport serve --stdio: a folder swapped for a link to outside while a client reads and writes", () => {
  it("returns nothing from outside the roots and creates, changes or deletes nothing there", async () => {
    const before = await outsideState();
    const escapes: string[] = [];
    const internal: string[] = [];
    let answered = 0;
    const attempt = async (name: string, args: Record<string, unknown>) => {
      const envelope = await server.call(`files.${name}`, args);
      if (envelope.ok) answered++;
      if (JSON.stringify(envelope).includes(CANARY)) escapes.push(name);
      if (envelope.error?.code === "INTERNAL") internal.push(`${name}: ${envelope.message}`);
    };
    // Two phases: swaps as fast as they go (the harshest race), then each state held 2 ms, so calls also land
    // wholly in the real folder and some go through.
    let swaps = 0;
    for (const holdMs of [0, 2]) {
      const swapper = await startSwapper(path.join(tree.root, "race"), tree.outside, { holdMs });
      try {
        for (let i = 0; i < ROUNDS / 2; i++) {
          const n = `${holdMs}-${i}`;
          await attempt("read_file", { path: "race/f.txt" });
          await attempt("list_directory", { path: "race" });
          await attempt("file_info", { path: "race/f.txt" });
          await attempt("write_file", { path: `race/w${n}.txt`, content: "w", overwrite: true });
          await attempt("append_file", { path: "race/f.txt", content: "+" });
          await attempt("move_file", { source: `race/w${n}.txt`, destination: "race/victim.txt", overwrite: true });
        }
      } finally {
        swaps += await swapper.stop();
      }
    }
    expect(swaps, "the swapper swapped").toBeGreaterThan(0);
    expect(answered, "some calls went through between swaps").toBeGreaterThan(0);
    expect(
      { escapes: [...new Set(escapes)], outside: await outsideState(), internal },
      server.stderr().slice(-1500),
    ).toEqual({
      escapes: [],
      outside: before,
      internal: [],
    });
  });
});

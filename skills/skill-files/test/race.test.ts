import { mkdir, writeFile as putFile } from "node:fs/promises";
import path from "node:path";
import { isSkillError } from "@skillport/core";
import type { HostileTree } from "@skillport/core/confine/testing";
import { CANARY, makeHostileTree, startSwapper } from "@skillport/core/confine/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  appendFile,
  deleteFile,
  FilesConfig,
  fileInfo,
  listDirectory,
  moveFile,
  readFile,
  writeFile,
} from "../src/index.js";
import { ctxFor, snapshot } from "./helpers.js";

/** Rounds of calls while the swapper runs, over two phases; each round is seven calls. */
const ROUNDS = 200;

let tree: HostileTree;

beforeAll(async () => {
  tree = await makeHostileTree();
  await mkdir(path.join(tree.root, "race"));
  await putFile(path.join(tree.root, "race", "f.txt"), "inside\n");
  // The same names outside: an escaping read returns CANARY, an escaping write or delete changes these.
  await putFile(path.join(tree.outside, "f.txt"), `${CANARY} f\n`);
  await putFile(path.join(tree.outside, "victim.txt"), `${CANARY} victim\n`);
});

afterAll(async () => {
  await tree?.dispose();
});

describe("a folder swapped for a link to outside, again and again, while the tools run", () => {
  it("never lets a read return, or a write create, change or delete, anything outside the roots", async () => {
    const ctx = ctxFor(FilesConfig.parse({ roots: [tree.root, tree.root2] }));
    const before = await snapshot(tree.outside);
    const escapes: string[] = [];
    const internal: string[] = [];
    let answered = 0;
    const attempt = async (label: string, call: () => Promise<unknown>) => {
      try {
        const answer = await call();
        answered++;
        if (JSON.stringify(answer).includes(CANARY)) escapes.push(label);
      } catch (error) {
        if (!isSkillError(error)) internal.push(`${label}: ${String(error)}`);
      }
    };
    // Two phases: swaps as fast as they go (the harshest race), then each state held 2 ms, so calls also land
    // wholly in the real folder and some go through.
    let swaps = 0;
    for (const holdMs of [0, 2]) {
      const swapper = await startSwapper(path.join(tree.root, "race"), tree.outside, { holdMs });
      try {
        for (let i = 0; i < ROUNDS / 2; i++) {
          const n = `${holdMs}-${i}`;
          await attempt("read_file", () => readFile({ path: "race/f.txt", encoding: "utf-8", offset: 0 }, ctx));
          await attempt("list_directory", () => listDirectory({ path: "race", recursive: false, limit: 50 }, ctx));
          await attempt("file_info", () => fileInfo({ path: "race/f.txt" }, ctx));
          await attempt("write_file", () =>
            writeFile(
              { path: `race/w${n}.txt`, content: "w", encoding: "utf-8", overwrite: true, create_directories: false },
              ctx,
            ),
          );
          await attempt("append_file", () =>
            appendFile({ path: "race/f.txt", content: "+", encoding: "utf-8", create_directories: false }, ctx),
          );
          await attempt("move_file", () =>
            moveFile(
              { source: `race/w${n}.txt`, destination: "race/victim.txt", overwrite: true, create_directories: false },
              ctx,
            ),
          );
          await attempt("delete_file", () => deleteFile({ path: "race/victim.txt", recursive: false }, ctx));
        }
      } finally {
        swaps += await swapper.stop();
      }
    }
    expect(swaps, "the swapper swapped").toBeGreaterThan(0);
    expect(answered, "some calls went through between swaps").toBeGreaterThan(0);
    // One comparison, so a failure shows every kind of escape at once.
    expect({
      escapes: [...new Set(escapes)],
      outside: await snapshot(tree.outside),
      internal,
    }).toEqual({ escapes: [], outside: before, internal: [] });
  });
});

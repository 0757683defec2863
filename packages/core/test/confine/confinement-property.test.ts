// Property: no path a caller can write leads a confinement out of its roots. Paths are generated from the hostile
// tree's own names (every kind of link in and out, links outside that lead back in, the folders beside the roots),
// `..` and its look-alikes, Windows and home forms, and any text, joined by any separator after any prefix
// (relative, the roots, the folders beside them, the filesystem's root). Whatever resolves must lie inside a root,
// the link itself included, by the library's answer and by the system's own realpath; whatever opens must not hold
// the canary every file outside holds; every refusal is a SkillError that names nothing outside the caller did not.
import { realpath, symlink } from "node:fs/promises";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Confinement } from "../../src/confine/index.js";
import { createConfinement } from "../../src/confine/index.js";
import type { HostileTree } from "../../src/confine/testing.js";
import { CANARY, makeHostileTree } from "../../src/confine/testing.js";
import { isSkillError } from "../../src/index.js";

let tree: HostileTree;
let roots: string[];

beforeAll(async () => {
  tree = await makeHostileTree();
  roots = [await realpath(tree.root), await realpath(tree.root2)];
  // Links outside that lead back in: what they lead to is inside, the link itself is not.
  await symlink(path.join(tree.root, "hello.txt"), path.join(tree.outside, "back-in"));
  await symlink(path.join(tree.root, "sub"), path.join(tree.outside, "back-dir"));
});

afterAll(async () => {
  await tree?.dispose();
});

/** Names in the hostile tree (inside the roots and out), and spellings that try to climb or jump out. */
const NAMES = [
  ...["hello.txt", "notes.md", "sub", "inner.txt", "file2.txt", "missing", "new.txt"],
  ...["link-secret", "leak.md", "link-out", "link-out-rel", "link-chain", "dangling", "dangling-in", "loop1"],
  ...["link-in", "link-sub", "link-root2", "link-base", "link-slash", "link-up", "back-in", "back-dir"],
  ...["root", "root2", "outside", "root-evil", "secret.txt", "secret.md", "deep", "secret2.txt", "x.txt"],
  ...["..", ".", "", "...", ".. ", " ..", "..\u0000", "%2e%2e", "\u2025", "\uff0e\uff0e", "~", "~root", "C:", "etc"],
];
/** Names that lead somewhere inside (a file, a folder, a link that stays in), so paths also reach real files. */
const INSIDE = ["hello.txt", "notes.md", "sub", "inner.txt", "link-in", "link-sub", "link-root2", "file2.txt"];
const nameArb = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...NAMES) },
  { weight: 6, arbitrary: fc.constantFrom(...INSIDE) },
  fc.string({ unit: "binary", maxLength: 6 }),
);
/** Where a path starts: relative, or absolute into the tree (its roots, the folders beside them), or the system's. */
type Start = "" | "./" | "/" | "base" | "root" | "root2" | "outside" | "rootEvil";
const startArb = fc.constantFrom<Start>("", "", "", "./", "/", "base", "root", "root2", "outside", "rootEvil");
const anyPathArb = fc.record({
  start: startArb,
  names: fc.array(nameArb, { minLength: 1, maxLength: 5 }),
  separators: fc.array(fc.constantFrom("/", "/", "/", "\\", "//"), { minLength: 6, maxLength: 6 }),
});
/** Paths that lead to a real file inside, plainly or through a link that stays in: opening is always exercised. */
const reachingPathArb = fc.oneof(
  fc.record({
    start: fc.constantFrom<Start>("", "./", "root"),
    names: fc.constantFrom(["hello.txt"], ["notes.md"], ["sub", "inner.txt"], ["link-in"], ["link-sub", "inner.txt"]),
    separators: fc.constant(["/", "/", "/", "/", "/", "/"]),
  }),
  fc.record({
    start: fc.constantFrom<Start>("root", "root2"),
    names: fc.constantFrom(["link-root2", "file2.txt"], ["file2.txt"]),
    separators: fc.constant(["/", "/", "/", "/", "/", "/"]),
  }),
);
const pathArb = fc.oneof({ weight: 5, arbitrary: anyPathArb }, { weight: 1, arbitrary: reachingPathArb });

function pathOf({
  start,
  names,
  separators,
}: {
  start: Start;
  names: readonly string[];
  separators: readonly string[];
}) {
  const prefix = start === "" || start === "./" || start === "/" ? start : `${tree[start]}/`;
  return prefix + names.map((name, i) => (i === 0 ? name : `${separators[i]}${name}`)).join("");
}

const insideRoots = (real: string) => roots.some((root) => real === root || real.startsWith(`${root}/`));

/** The system's realpath of what the library resolved, when it exists. */
async function systemRealpath(target: string): Promise<string | undefined> {
  try {
    return await realpath(target);
  } catch {
    return undefined;
  }
}

/** A SkillError whose message gives away nothing outside the caller did not name; anything else is rethrown. */
function expectRefusal(error: unknown, requested: string) {
  if (!isSkillError(error)) throw error;
  expect(error.message).not.toContain(CANARY);
  for (const hidden of ["secret", tree.outside]) {
    if (!requested.includes(hidden)) expect(error.message, requested).not.toContain(hidden);
  }
}

describe.each(["auto", "inode"] as const)("generated paths, descriptor check %s", (check) => {
  let jail: Confinement;
  beforeAll(async () => {
    jail = await createConfinement({ roots: [tree.root, tree.root2], descriptorCheck: check });
  });

  it("never resolve or open anything outside the roots", async () => {
    let resolved = 0;
    let opened = 0;
    await fc.assert(
      fc.asyncProperty(pathArb, async (generated) => {
        const requested = pathOf(generated);
        let target: Awaited<ReturnType<Confinement["resolve"]>>;
        try {
          target = await jail.resolve(requested, "/path");
        } catch (error) {
          expectRefusal(error, requested);
          return;
        }
        resolved++;
        expect(insideRoots(target.real), `${requested} → ${target.real}`).toBe(true);
        expect(insideRoots(target.entry), `${requested} → ${target.entry}`).toBe(true);
        const system = await systemRealpath(target.real);
        if (system !== undefined) expect(insideRoots(system), `${requested} → ${system}`).toBe(true);
        try {
          const file = await jail.openFile(target);
          try {
            opened++;
            expect(insideRoots(file.path)).toBe(true);
            const { buffer, bytesRead } = await file.handle.read(Buffer.alloc(4096), 0, 4096, 0);
            expect(buffer.subarray(0, bytesRead).toString("utf8")).not.toContain(CANARY);
          } finally {
            await file.handle.close();
          }
        } catch (error) {
          expectRefusal(error, requested);
        }
      }),
      { numRuns: 600 },
    );
    // The generator reaches real files inside, not only refusals (one path in six is built to: about 100 a run, so
    // these bounds hold for any seed; before, at most a handful opened, and a run with 4 failed).
    expect(resolved).toBeGreaterThan(30);
    expect(opened).toBeGreaterThan(30);
  });
});

// The layout the code keeps, checked from the source files alone (read, never imported):
// - the host's folders are floors, and an import only goes down (or stays on its floor): a lower floor never learns
//   of a higher one, type imports included;
// - no package's src has a cycle of files importing each other (value or type imports, dynamic import() too);
// - no source file is over 500 lines.
// Imports are read with TypeScript's pre-processor, which skips comments and strings.
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const HOST_SRC = "packages/host/src";

/**
 * The host's floors, bottom to top: each folder (or file at the root of src/) may import from its own floor and those
 * below. A new folder must be placed here.
 */
const FLOORS: readonly (readonly string[])[] = [
  // What needs nothing else of the host: its errors, where its own files are, JSON text and pointers.
  ["errors", "package", "json"],
  // JSON Schema (ajv, the host's checks, patterns) and the redactor everything that leaves the host passes.
  ["schema", "redaction"],
  // The logger, and the tracer the host speaks to (the OpenTelemetry SDK behind it is loaded only when configured).
  ["logging", "tracing"],
  ["manifest"],
  ["state"],
  // Per-caller credentials: the sealed vault, connect links, and how a call gets its caller's own.
  ["credentials"],
  ["entries"],
  ["registry"],
  ["pipeline"],
  ["transports"],
  ["host.ts"],
  ["mcp"],
  // The package's entry files.
  ["index.ts", "http.ts", "stdio.ts", "testing.ts", "surface.ts"],
];

/** The longest a source file may be. */
const MAX_LINES = 500;

const SOURCE = /\.(?:[cm]?ts|tsx|[cm]?js)$/;

/** Every source file under `dir` (from the repository's root), `.d.ts` left out. */
async function sourceFiles(dir: string): Promise<string[]> {
  const names = await readdir(path.join(ROOT, dir), { recursive: true });
  return names
    .filter((name) => SOURCE.test(name) && !name.endsWith(".d.ts"))
    .map((name) => path.posix.join(dir, name.split(path.sep).join("/")))
    .sort();
}

/** The files a source file imports from its own package (relative specifiers), resolved to files that exist. */
function localImports(file: string, text: string, known: ReadonlySet<string>): string[] {
  const found: string[] = [];
  for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
    if (!fileName.startsWith(".")) continue;
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), fileName));
    const candidates = [
      target,
      target.replace(/\.js$/, ".ts"),
      target.replace(/\.mjs$/, ".mts"),
      target.replace(/\.cjs$/, ".cts"),
      `${target}.ts`,
      `${target}/index.ts`,
    ];
    const hit = candidates.find((candidate) => known.has(candidate));
    if (hit !== undefined) found.push(hit);
  }
  return found;
}

/** Each package's src folder, from the repository's root. */
async function srcFolders(): Promise<string[]> {
  const folders: string[] = [];
  for (const parent of ["packages", "skills"]) {
    for (const entry of await readdir(path.join(ROOT, parent), { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const src = path.posix.join(parent, entry.name, "src");
      if ((await readdir(path.join(ROOT, src)).catch(() => undefined)) !== undefined) folders.push(src);
    }
  }
  return folders.sort();
}

/** The import graph of one src folder: file → the files it imports. */
async function graphOf(src: string): Promise<Map<string, string[]>> {
  const files = await sourceFiles(src);
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) graph.set(file, localImports(file, await readFile(path.join(ROOT, file), "utf8"), known));
  return graph;
}

/** The strongly connected components of more than one file (or a file importing itself): the cycles. */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  // Tarjan's algorithm, with an explicit stack of (file, position in its imports) instead of recursion.
  for (const root of graph.keys()) {
    if (index.has(root)) continue;
    const work: { file: string; at: number }[] = [{ file: root, at: 0 }];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1] as { file: string; at: number };
      const targets = graph.get(frame.file) ?? [];
      if (frame.at < targets.length) {
        const target = targets[frame.at++] as string;
        if (!index.has(target)) {
          index.set(target, next);
          low.set(target, next++);
          stack.push(target);
          onStack.add(target);
          work.push({ file: target, at: 0 });
        } else if (onStack.has(target)) {
          low.set(frame.file, Math.min(low.get(frame.file) as number, index.get(target) as number));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined) {
        low.set(parent.file, Math.min(low.get(parent.file) as number, low.get(frame.file) as number));
      }
      if (low.get(frame.file) !== index.get(frame.file)) continue;
      const component: string[] = [];
      for (;;) {
        const member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
        if (member === frame.file) break;
      }
      if (component.length > 1 || targets.includes(frame.file)) cycles.push(component.sort());
    }
  }
  return cycles.sort((a, b) => (a[0] as string).localeCompare(b[0] as string));
}

/** The floor of a file of the host's src: the position of its folder (or root file) in FLOORS. */
function floorOf(file: string): number {
  const first = path.posix.relative(HOST_SRC, file).split("/")[0] as string;
  return FLOORS.findIndex((floor) => floor.includes(first));
}

describe("the code's layout", () => {
  it("places every folder and root file of the host's src on a floor", async () => {
    const unplaced = new Set((await sourceFiles(HOST_SRC)).filter((file) => floorOf(file) === -1));
    expect([...unplaced], "add the folder to FLOORS in test/layout.test.ts, where it belongs").toEqual([]);
  });

  it("has the host's imports go down its floors, never up", async () => {
    const graph = await graphOf(HOST_SRC);
    const upward: string[] = [];
    for (const [file, targets] of graph) {
      for (const target of targets) {
        if (floorOf(target) > floorOf(file)) upward.push(`${file} imports ${target}, a floor above it`);
      }
    }
    expect(upward).toEqual([]);
  });

  it("has no cycle of files in any package's src", async () => {
    const cycles: string[] = [];
    for (const src of await srcFolders()) {
      for (const cycle of cyclesOf(await graphOf(src))) cycles.push(cycle.join(" ↔ "));
    }
    expect(cycles).toEqual([]);
  });

  it(`has no source file over ${MAX_LINES} lines`, async () => {
    const long: string[] = [];
    for (const src of await srcFolders()) {
      for (const file of await sourceFiles(src)) {
        const text = await readFile(path.join(ROOT, file), "utf8");
        const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
        if (lines > MAX_LINES) long.push(`${file}: ${lines} lines`);
      }
    }
    expect(long).toEqual([]);
  });

  it("finds a cycle and an upward import where there is one (the checks themselves)", () => {
    const graph = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts"]],
      ["d.ts", ["d.ts"]],
      ["e.ts", ["a.ts"]],
    ]);
    expect(cyclesOf(graph)).toEqual([["a.ts", "b.ts", "c.ts"], ["d.ts"]]);
    expect(floorOf(`${HOST_SRC}/entries/tool-entry.ts`)).toBeLessThan(floorOf(`${HOST_SRC}/pipeline/call.ts`));
    const known = new Set(["x/a.ts", "x/b.ts"]);
    expect(localImports("x/a.ts", '// import "./b.js";\nexport type { B } from "./b.js";', known)).toEqual(["x/b.ts"]);
  });
});

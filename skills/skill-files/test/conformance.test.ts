import { access, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { testSkill } from "@skillport/testing";
import { expect } from "vitest";
import { register } from "../src/index.js";

/** A 1×1 PNG, for the base64 read example (docs/logo.png). */
const PIXEL = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=",
  "base64",
);

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

// The examples run in a fresh workspace holding the files they name: read notes/todo.md and docs/logo.png, append
// to logs/journal.md, list src/, move drafts/post.md, delete build/old-report.pdf and build/tmp. write_file's first
// example meets the existing notes/todo.md without overwrite and answers CONFLICT, which the suite accepts: it
// checks how a call behaves, not that it succeeds. The teardown checks that the examples did their work here.
//
// numRuns: write_file and append_file bound content at 11 184 812 characters (8 MiB of bytes, base64-encoded), and
// the parity check probes that bound, so about one sample in twelve is a string of that length, costing a few
// tenths of a second to copy and validate on both sides. 100 samples per tool (instead of 200) still probe every bound and
// keep each check well inside its 30 s limit on a busy machine; zod and the published schema agreed on 1500
// samples per tool.
testSkill(register, {
  numRuns: 100,
  async setup() {
    const dir = await mkdtemp(path.join(os.tmpdir(), "skill-files-conformance-"));
    const root = path.join(dir, "workspace");
    const files: Record<string, string | Buffer> = {
      "notes/todo.md": "# To do\n\n- read the files skill's README\n",
      "docs/logo.png": PIXEL,
      "logs/journal.md": "# Journal\n",
      "src/index.ts": 'export const hello = "world";\n',
      "src/lib/util.ts": "export const one = 1;\n",
      "drafts/post.md": "# A first post\n",
      "build/old-report.pdf": "%PDF-1.4\n",
      "build/tmp/cache.json": "{}\n",
    };
    for (const [name, content] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(root, name)), { recursive: true });
      await writeFile(path.join(root, name), content);
    }
    const teardown = async () => {
      try {
        expect(await readFile(path.join(root, "notes/todo.md"), "utf8")).toBe(files["notes/todo.md"]);
        expect(await readFile(path.join(root, "logs/journal.md"), "utf8")).toMatch(/shipped the files skill/);
        expect(await exists(path.join(root, "posts/2026-03-01-post.md"))).toBe(true);
        expect(await exists(path.join(root, "build/old-report.pdf"))).toBe(false);
        expect(await exists(path.join(root, "build/tmp"))).toBe(false);
        expect(await exists(path.join(root, "assets/dot.gif"))).toBe(false); // its folder is missing: NOT_FOUND
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    };
    return { config: { roots: [root] }, teardown };
  },
});

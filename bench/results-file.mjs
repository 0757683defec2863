// bench/RESULTS.md holds one top-level section per benchmark; each script rewrites only its own section.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { WRITE } from "./run-options.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.join(HERE, "..");
export const RESULTS = path.join(HERE, "RESULTS.md");

/** What a benchmark's last line says of the file: written, or left alone under `--no-write`. */
export const WROTE = WRITE ? "wrote bench/RESULTS.md" : "left bench/RESULTS.md as it was (--no-write)";

/** The benchmarks' sections, in the order the file keeps them. */
const ORDER = [
  "# Side by side over stdio: the floor, the raw SDK, tmcp, FastMCP, Skillport",
  "# HTTP benchmark: Skillport vs the raw SDK",
  "# Shared state: the Redis store vs the memory store (HTTP)",
  "# Cold start to first tools/list (stdio)",
];

/**
 * Replaces the section that starts with `heading` (a `# ` line, listed in ORDER) with `text`, keeping every other
 * section as it is, then lets the repository's formatter lay the Markdown out (tables aligned) so the file passes
 * `biome check`. With `--no-write` on the command line it leaves the file alone, whichever benchmark calls it.
 */
export function writeSection(heading, text) {
  if (!WRITE) return;
  const sections = new Map();
  if (existsSync(RESULTS)) {
    let current;
    for (const line of readFileSync(RESULTS, "utf8").split("\n")) {
      if (line.startsWith("# ")) {
        current = line;
        sections.set(current, []);
      }
      if (current !== undefined) sections.get(current).push(line);
    }
  }
  sections.set(heading, text.trimEnd().split("\n"));
  const headings = [...ORDER.filter((h) => sections.has(h)), ...[...sections.keys()].filter((h) => !ORDER.includes(h))];
  const body = headings.map((h) => sections.get(h).join("\n").trimEnd()).join("\n\n");
  writeFileSync(RESULTS, `${body}\n`);
  execFileSync(path.join(ROOT, "node_modules/.bin/biome"), ["format", "--write", RESULTS], { stdio: "ignore" });
}

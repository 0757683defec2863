import { lstat, readdir, readFile } from "node:fs/promises";
import path from "node:path";
import type { SkillInstance } from "../entries/skill-instance.js";

/** The file a skill package's instructions are in (Agent Skills format), at the package's root. */
export const SKILL_FILE = "SKILL.md";

/** Folders beside SKILL.md whose files belong to the skill (the Agent Skills layout). */
export const SKILL_FOLDERS = ["references", "scripts", "assets"] as const;

/** At most this many files, and bytes, per skill (the Skills extension's limits). */
export const SKILL_LIMITS = { files: 512, bytes: 16 * 1024 * 1024 };

/**
 * One instance's `SKILL.md`, as the Skills extension serves it: at `skill://<mcp>/<name>/SKILL.md` (or
 * `skill://<name>/SKILL.md` for an instance mounted without a prefix), where `<name>` is its frontmatter name.
 */
export interface SkillDoc {
  readonly instance: SkillInstance;
  /** `skill://<mcp>/` or `skill://`. */
  readonly base: string;
  /** The frontmatter's `name`. */
  readonly name: string;
  readonly description: string | undefined;
  /** The SKILL.md's URI. */
  readonly uri: string;
  /** The package folder SKILL.md is in. */
  readonly dir: string;
}

/**
 * The name and description in a SKILL.md's frontmatter, read without a YAML library: the top-level `name:` and
 * `description:` lines, plain or quoted. The Skills extension parses the whole frontmatter when it serves the file
 * and drops a skill whose name this reading got wrong. Undefined when the folder has no SKILL.md.
 */
export async function readSkillHead(
  dir: string,
): Promise<{ name: string; description: string | undefined } | undefined> {
  let text: string;
  try {
    const file = path.join(dir, SKILL_FILE);
    if (!(await lstat(file)).isFile()) return undefined;
    text = await readFile(file, "utf8");
  } catch {
    return undefined;
  }
  const block = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text)?.[1];
  if (block === undefined) return undefined;
  const field = (key: string) => {
    const line = new RegExp(`^${key}:[ \\t]*(.*)$`, "m").exec(block)?.[1]?.trim();
    if (line === undefined || line === "") return undefined;
    const quoted = /^(["'])(.*)\1$/.exec(line);
    return quoted === null ? line.replace(/[ \t]+#.*$/, "") : (quoted[2] as string);
  };
  const name = field("name");
  return name === undefined ? undefined : { name, description: field("description") };
}

/**
 * A skill's files by path relative to its folder: SKILL.md and the regular files under references/, scripts/ and
 * assets/. Links and other special files are left out; past {@link SKILL_LIMITS} the rest is left out too.
 */
export async function readSkillFiles(dir: string): Promise<Record<string, Uint8Array>> {
  const files: Record<string, Uint8Array> = {};
  let count = 0;
  let bytes = 0;
  const add = async (relative: string): Promise<void> => {
    if (count >= SKILL_LIMITS.files) return;
    const content = await readFile(path.join(dir, relative));
    if (bytes + content.byteLength > SKILL_LIMITS.bytes) return;
    count++;
    bytes += content.byteLength;
    files[relative] = content;
  };
  await add(SKILL_FILE);
  const walk = async (relative: string, depth: number): Promise<void> => {
    if (depth > 8) return;
    let entries: import("node:fs").Dirent[];
    try {
      entries = await readdir(path.join(dir, relative), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const child = `${relative}/${entry.name}`;
      if (entry.isDirectory()) await walk(child, depth + 1);
      else if (entry.isFile()) await add(child);
    }
  };
  for (const folder of SKILL_FOLDERS) await walk(folder, 0);
  return files;
}

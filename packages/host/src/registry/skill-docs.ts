import { lstatSync } from "node:fs";
import path from "node:path";
import type { ConfinedDirectory } from "@skillport/core/confine";
import type { SkillInstance } from "../entries/skill-instance.js";

/** The file a skill package's instructions are in (Agent Skills format), at the package's root. */
export const SKILL_FILE = "SKILL.md";

/** Folders beside SKILL.md whose files belong to the skill (the Agent Skills layout). */
const SKILL_FOLDERS = ["references", "scripts", "assets"] as const;

/** At most this many files, and bytes, per skill (the Skills extension's limits). */
const SKILL_LIMITS = { files: 512, bytes: 16 * 1024 * 1024 };

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
 * and drops a skill whose name this reading got wrong. Undefined when the folder has no SKILL.md (or only a link
 * named so).
 */
export async function readSkillHead(
  dir: string,
): Promise<{ name: string; description: string | undefined } | undefined> {
  // Most packages have no SKILL.md: one lstat says so, before the confined open below (which alone decides what is
  // read). A name that is no regular file here is none there either: the confined root is this folder, links resolved.
  if (!isRegularFile(path.join(dir, SKILL_FILE))) return undefined;
  const bytes = await withPackage(dir, (root) => readWithin(root, SKILL_FILE, SKILL_LIMITS.bytes)).catch(
    () => undefined,
  );
  if (bytes === undefined) return undefined;
  const head = parseSkillHead(new TextDecoder().decode(bytes));
  return head?.name === undefined ? undefined : { name: head.name, description: head.description };
}

/**
 * The top-level `name:` and `description:` of a SKILL.md's frontmatter (plain or quoted values), read without a
 * YAML library; undefined when the text does not open with a frontmatter block (`---` on its first line).
 *
 * @example
 * parseSkillHead("---\nname: notes\ndescription: Search notes.\n---\n"); // { name: "notes", description: "Search notes." }
 */
export function parseSkillHead(text: string): { name?: string; description?: string } | undefined {
  const block = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text)?.[1];
  if (block === undefined) return undefined;
  const field = (key: string) => {
    const line = new RegExp(`^${key}:[ \\t]*(.*)$`, "m").exec(block)?.[1]?.trim();
    if (line === undefined || line === "") return undefined;
    const quoted = /^(["'])(.*)\1$/.exec(line);
    return quoted === null ? line.replace(/[ \t]+#.*$/, "") : (quoted[2] as string);
  };
  const name = field("name");
  const description = field("description");
  return { ...(name === undefined ? {} : { name }), ...(description === undefined ? {} : { description }) };
}

/**
 * A skill's files by path relative to its folder: SKILL.md and the regular files under references/, scripts/ and
 * assets/, read through descriptors confined to the package folder (`@skillport/core/confine`): no folder or file is
 * opened through a link, so nothing outside the package is ever served, whatever its folder holds or becomes while
 * it is read. Links and other special files are left out; past {@link SKILL_LIMITS} the rest is left out too.
 */
export async function readSkillFiles(dir: string): Promise<Record<string, Uint8Array>> {
  return withPackage(dir, async (root) => {
    const files: Record<string, Uint8Array> = {};
    let count = 0;
    let bytes = 0;
    const add = async (folder: ConfinedDirectory, name: string, relative: string): Promise<void> => {
      if (count >= SKILL_LIMITS.files) return;
      const content = await readWithin(folder, name, SKILL_LIMITS.bytes - bytes);
      if (content === undefined) return;
      count++;
      bytes += content.byteLength;
      files[relative] = content;
    };
    await add(root, SKILL_FILE, SKILL_FILE);
    const walk = async (folder: ConfinedDirectory, relative: string, depth: number): Promise<void> => {
      if (depth > 8) return;
      for (const entry of (await folder.list()).sort((a, b) => a.name.localeCompare(b.name))) {
        const child = `${relative}/${entry.name}`;
        if (entry.isDirectory()) await within(folder, entry.name, (sub) => walk(sub, child, depth + 1));
        else if (entry.isFile()) await add(folder, entry.name, child);
      }
    };
    for (const name of SKILL_FOLDERS) await within(root, name, (sub) => walk(sub, name, 0));
    return files;
  });
}

// --- internal ---

/** Whether `file` is a regular file (not a link, a folder, or missing); false when it cannot be told. */
function isRegularFile(file: string): boolean {
  try {
    return lstatSync(file, { throwIfNoEntry: false })?.isFile() === true;
  } catch {
    return false;
  }
}

/** Runs `use` on the package folder, opened confined to itself; closes it after. */
async function withPackage<T>(dir: string, use: (root: ConfinedDirectory) => Promise<T>): Promise<T> {
  // Loaded with the first package that has a SKILL.md: most compositions read none at start-up.
  const { createConfinement } = await import("@skillport/core/confine");
  const jail = await createConfinement({ roots: [dir], protectedNames: [] });
  const root = await jail.openDirectory(await jail.resolve(".", "/dir"));
  try {
    return await use(root);
  } finally {
    await root.close();
  }
}

/** Runs `use` on the sub-folder `name`, when it is a folder (not a link to one); nothing otherwise. */
async function within(folder: ConfinedDirectory, name: string, use: (sub: ConfinedDirectory) => Promise<void>) {
  const stats = await folder.lstat(name);
  if (stats === undefined || !stats.isDirectory()) return;
  const sub = await folder.openDirectory(name).catch(() => undefined);
  if (sub === undefined) return;
  try {
    await use(sub);
  } finally {
    await sub.close();
  }
}

/** The bytes of the regular file `name` in `folder` (never through a link), or undefined (none, or over `limit`). */
async function readWithin(folder: ConfinedDirectory, name: string, limit: number): Promise<Uint8Array | undefined> {
  const stats = await folder.lstat(name);
  if (stats === undefined || !stats.isFile() || stats.size > limit) return undefined;
  const file = await folder.openFile(name).catch(() => undefined);
  if (file === undefined) return undefined;
  try {
    if (file.stats.size > limit) return undefined;
    return new Uint8Array(await file.handle.readFile());
  } finally {
    await file.handle.close();
  }
}

import { readdir, readFile, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { SkillError } from "@skillport/core";
import { parse as parseYaml } from "yaml";
import type { NotesConfig, ScopeName } from "./config.js";

/** A note as read from disk. */
export interface Note {
  /** Relative to the vault, with forward slashes. */
  path: string;
  title: string;
  frontmatter: Record<string, unknown>;
  body: string;
  content: string;
}

const NOTE_EXTENSIONS = [".md", ".markdown"];

/**
 * Resolves a caller's vault-relative note path to a real file inside the scope's folders.
 * `..`, absolute paths, NUL bytes, symlinks that leave the allowed folders, and anything outside the
 * scope → PERMISSION_DENIED; a missing note → NOT_FOUND. Returns the normalised relative path and the real path.
 */
export async function resolveNotePath(
  config: NotesConfig,
  scope: ScopeName,
  requested: string,
  field: string,
): Promise<{ relative: string; real: string }> {
  const folders = config.scopes[scope];
  const deny = (why: string) =>
    new SkillError({
      code: "PERMISSION_DENIED",
      field,
      message: `${why}; give a path relative to the vault inside ${folders.map((f) => `${f}/`).join(", ")}`,
    });
  if (requested.includes("\0")) throw deny(`path "${printable(requested)}" contains a NUL byte`);
  if (path.isAbsolute(requested) || path.win32.isAbsolute(requested) || /^[A-Za-z]:/.test(requested)) {
    throw deny(`path "${requested}" is absolute`);
  }
  const segments = requested.split(/[\\/]+/).filter((s) => s !== "" && s !== ".");
  if (segments.includes("..")) throw deny(`path "${requested}" leaves its folder with ".."`);
  const relative = segments.join("/");
  if (!NOTE_EXTENSIONS.includes(path.extname(relative).toLowerCase())) {
    throw new SkillError({
      code: "ARGUMENT_INVALID",
      field,
      message: `path "${requested}" is not a Markdown note; it must end in .md`,
    });
  }
  if (!folders.some((folder) => isInside(relative, normaliseFolder(folder)))) {
    throw deny(`note "${relative}" is outside the "${scope}" scope`);
  }
  const vault = await realVault(config);
  let real: string;
  try {
    real = await realpath(path.join(vault, relative));
  } catch (error) {
    if (isMissing(error))
      throw new SkillError({ code: "NOT_FOUND", field, message: `note "${relative}" does not exist` });
    throw error;
  }
  const realFolders = await Promise.all(folders.map((f) => realpath(path.join(vault, f)).catch(() => undefined)));
  if (!realFolders.some((folder) => folder !== undefined && isInsideReal(real, folder))) {
    throw deny(`note "${relative}" links to a file outside the "${scope}" scope`);
  }
  return { relative, real };
}

/** Every note under the scope's folders, as vault-relative paths, never following links out of them. */
export async function listNotes(config: NotesConfig, scope: ScopeName, signal: AbortSignal): Promise<string[]> {
  const vault = await realVault(config);
  const found = new Set<string>();
  for (const folder of config.scopes[scope]) {
    const root = path.join(vault, normaliseFolder(folder));
    let realRoot: string;
    try {
      realRoot = await realpath(root);
    } catch {
      continue; // a scope folder that does not exist yet holds no notes
    }
    if (!isInsideReal(realRoot, vault)) continue;
    const entries = await readdir(root, { recursive: true, withFileTypes: true });
    for (const entry of entries) {
      signal.throwIfAborted();
      if (!NOTE_EXTENSIONS.includes(path.extname(entry.name).toLowerCase())) continue;
      if (!entry.isFile() && !entry.isSymbolicLink()) continue;
      const full = path.join(entry.parentPath, entry.name);
      if (entry.isSymbolicLink()) {
        const target = await realpath(full).catch(() => undefined);
        if (target === undefined || !isInsideReal(target, realRoot)) continue;
      }
      found.add(path.relative(vault, full).split(path.sep).join("/"));
    }
  }
  return [...found].sort();
}

/** Reads and parses a note; `real` must come from {@link resolveNotePath} or {@link listNotes}. */
export async function readNote(config: NotesConfig, relative: string, real?: string): Promise<Note> {
  const file = real ?? path.join(await realVault(config), relative);
  const info = await stat(file);
  if (info.size > config.maxNoteBytes) {
    throw new SkillError({
      code: "PERMISSION_DENIED",
      message: `note "${relative}" is ${info.size} bytes, over the instance's maxNoteBytes (${config.maxNoteBytes})`,
    });
  }
  const content = await readFile(file, "utf8");
  const { frontmatter, body } = splitFrontmatter(content);
  const title =
    typeof frontmatter.title === "string" && frontmatter.title.trim() !== ""
      ? frontmatter.title
      : titleOf(body, relative);
  return { path: relative, title, frontmatter, body, content };
}

/** The vault's real path; a missing vault is the operator's problem, said plainly. */
export async function realVault(config: NotesConfig): Promise<string> {
  try {
    return await realpath(config.vault);
  } catch {
    throw new SkillError({
      code: "UNAVAILABLE",
      message: `the vault folder "${config.vault}" does not exist; set "vault" in this skill's manifest config`,
    });
  }
}

export function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === "ENOENT";
}

// --- internal ---

function splitFrontmatter(content: string): { frontmatter: Record<string, unknown>; body: string } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(content);
  if (match === null) return { frontmatter: {}, body: content };
  let parsed: unknown;
  try {
    parsed = parseYaml(match[1] ?? "");
  } catch {
    parsed = undefined; // a broken header is kept in the content and ignored as metadata
  }
  const frontmatter = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? toJson(parsed) : {};
  return { frontmatter, body: content.slice(match[0].length) };
}

/** YAML dates become ISO strings so frontmatter is plain JSON. */
function toJson(value: object): Record<string, unknown> {
  return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
}

function titleOf(body: string, relative: string): string {
  const heading = /^#\s+(.+)$/m.exec(body);
  return heading?.[1]?.trim() ?? path.basename(relative, path.extname(relative));
}

function normaliseFolder(folder: string): string {
  return folder
    .split(/[\\/]+/)
    .filter((s) => s !== "" && s !== ".")
    .join("/");
}

function isInside(relative: string, folder: string): boolean {
  return folder === "" || relative === folder || relative.startsWith(`${folder}/`);
}

export function isInsideReal(real: string, folder: string): boolean {
  const rel = path.relative(folder, real);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

function printable(value: string): string {
  return value.replaceAll("\0", "\\0");
}

import { realpath } from "node:fs/promises";
import path from "node:path";
import { isSkillError, SkillError } from "@skillport/core";
import type { ConfinedDirectory, ConfinedPath, Confinement } from "@skillport/core/confine";
import { createConfinement, fsError, isInside, printablePath } from "@skillport/core/confine";
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

/** The vault as one scope sees it, for one call: every path goes through its confinement. */
export interface ScopedVault {
  config: NotesConfig;
  scope: ScopeName;
  /** The vault's real path. */
  vault: string;
  /** The scope's folders, normalised, relative to the vault ("" for the whole vault). */
  folders: string[];
  /** Roots: the scope folders' real paths that lie inside the vault; relative paths start at the vault. */
  jail: Confinement;
}

const NOTE_EXTENSIONS = [".md", ".markdown"];

/**
 * Opens the vault for a scope. A scope folder that is missing holds no notes; one that is a link out of the vault
 * holds none either (search_notes skipped it before, and read_note now refuses it too).
 */
export async function openVault(config: NotesConfig, scope: ScopeName): Promise<ScopedVault> {
  const vault = await realVault(config);
  const folders = config.scopes[scope].map(normaliseFolder);
  const roots: string[] = [];
  for (const folder of folders) {
    const real = await realpath(path.join(vault, folder)).catch(() => undefined);
    if (real !== undefined && isInside(real, vault)) roots.push(real);
  }
  const jail = await createConfinement({
    roots,
    base: vault,
    absolutePaths: false,
    missingRoots: "skip",
    hint: `give a path relative to the vault inside ${config.scopes[scope].map((f) => `${f}/`).join(", ")}`,
  });
  return { config, scope, vault, folders, jail };
}

/**
 * Resolves a caller's vault-relative note path inside the scope's folders. `..`, absolute paths, NUL bytes, links
 * that leave the allowed folders, and anything outside the scope → PERMISSION_DENIED; a path that is not a
 * Markdown note → ARGUMENT_INVALID. Returns the normalised relative path and the confined target (which may not
 * exist: opening it answers NOT_FOUND).
 */
export async function resolveNotePath(
  v: ScopedVault,
  requested: string,
  field: string,
): Promise<{ relative: string; target: ConfinedPath }> {
  const { names } = v.jail.parse(requested, field);
  const relative = names.join("/");
  if (!NOTE_EXTENSIONS.includes(path.extname(relative).toLowerCase())) {
    throw new SkillError({
      code: "ARGUMENT_INVALID",
      field,
      message: `path "${printablePath(requested)}" is not a Markdown note; it must end in .md`,
    });
  }
  if (!v.folders.some((folder) => isInsideRelative(relative, folder))) {
    throw new SkillError({
      code: "PERMISSION_DENIED",
      field,
      message: `note "${printablePath(relative)}" is outside the "${v.scope}" scope; give a path relative to the vault inside ${v.config.scopes[v.scope].map((f) => `${f}/`).join(", ")}`,
    });
  }
  const target = await v.jail.resolve(requested, field);
  return { relative, target };
}

/**
 * Every note under the scope's folders, as vault-relative paths. Folders are opened through their checked parents
 * and links to folders are never followed; a linked note is listed only when it resolves inside the scope.
 */
export async function listNotes(v: ScopedVault, signal: AbortSignal): Promise<string[]> {
  const found = new Set<string>();
  for (const folder of v.folders) {
    let top: ConfinedDirectory;
    try {
      top = await v.jail.openDirectory(await v.jail.resolve(folder === "" ? "." : folder, "/scope"));
    } catch {
      continue; // a scope folder that is missing, or leads out of the vault, holds no notes
    }
    try {
      await walk(top, folder, async (relative, isLink) => {
        signal.throwIfAborted();
        if (isLink) {
          // A link counts only when it leads to a note inside the scope.
          const ok = await v.jail.resolve(relative, "/scope").then(
            () => true,
            () => false,
          );
          if (!ok) return;
        }
        found.add(relative);
      });
    } finally {
      await top.close();
    }
  }
  return [...found].sort();
}

/** Reads and parses a note through the scope's confinement: a regular file, its descriptor checked, never blocking. */
export async function loadNote(v: ScopedVault, relative: string, target?: ConfinedPath): Promise<Note> {
  const confined = target ?? (await resolveNotePath(v, relative, "/path")).target;
  const file = await v.jail.openFile(confined);
  let bytes: Buffer;
  try {
    if (file.stats.size > v.config.maxNoteBytes) throw tooLarge(relative, file.stats.size, v.config.maxNoteBytes);
    // The file may grow after fstat: read at most one byte past the limit.
    bytes = Buffer.alloc(v.config.maxNoteBytes + 1);
    let got = 0;
    try {
      for (;;) {
        const { bytesRead } = await file.handle.read(bytes, got, bytes.length - got, got);
        if (bytesRead === 0) break;
        got += bytesRead;
        if (got === bytes.length) break;
      }
    } catch (error) {
      throw fsError(error, { path: relative, field: confined.field });
    }
    if (got > v.config.maxNoteBytes) throw tooLarge(relative, got, v.config.maxNoteBytes);
    bytes = bytes.subarray(0, got);
  } finally {
    await file.handle.close();
  }
  const content = bytes.toString("utf8");
  const { frontmatter, body } = splitFrontmatter(content);
  const title =
    typeof frontmatter.title === "string" && frontmatter.title.trim() !== ""
      ? frontmatter.title
      : titleOf(body, relative);
  return { path: relative, title, frontmatter, body, content };
}

/** The vault's real path; a missing vault is the operator's problem, said plainly. */
async function realVault(config: NotesConfig): Promise<string> {
  try {
    return await realpath(config.vault);
  } catch {
    throw new SkillError({
      code: "UNAVAILABLE",
      message: `the vault folder "${config.vault}" does not exist; set "vault" in this skill's manifest config`,
    });
  }
}

// --- internal ---

/** Calls `found` for every Markdown file or link below `top`, folders opened one checked step at a time. */
async function walk(
  top: ConfinedDirectory,
  prefix: string,
  found: (relative: string, isLink: boolean) => Promise<void>,
): Promise<void> {
  for (const entry of await top.list()) {
    const relative = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) {
      let child: ConfinedDirectory;
      try {
        child = await top.openDirectory(entry.name);
      } catch {
        continue; // replaced meanwhile, or unreadable: it holds no notes for us
      }
      try {
        await walk(child, relative, found);
      } catch (error) {
        if (!isSkillError(error)) throw error; // an abort ends the walk; an unreadable folder is skipped
      } finally {
        await child.close();
      }
    } else if (
      (entry.isFile() || entry.isSymbolicLink()) &&
      NOTE_EXTENSIONS.includes(path.extname(entry.name).toLowerCase())
    ) {
      await found(relative, entry.isSymbolicLink());
    }
  }
}

function tooLarge(relative: string, size: number, max: number): SkillError {
  return new SkillError({
    code: "PERMISSION_DENIED",
    message: `note "${relative}" is ${size} bytes, over the instance's maxNoteBytes (${max})`,
  });
}

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

function isInsideRelative(relative: string, folder: string): boolean {
  return folder === "" || relative === folder || relative.startsWith(`${folder}/`);
}

import type { Dirent, Stats } from "node:fs";
import type { SkillContext } from "@skillport/core";
import { defineTool, isSkillError, SkillError, withEvidence } from "@skillport/core";
import type { ConfinedDirectory } from "@skillport/core/confine";
import { printablePath } from "@skillport/core/confine";
import { z } from "zod";
import type { FilesConfig } from "./config.js";
import { confinementFor } from "./confinement.js";
import { pathField } from "./schema.js";

/** How deep a recursive listing goes when `depth` is not given. */
const DEFAULT_DEPTH = 3;

export const ListDirectoryInput = z
  .object({
    path: pathField("The folder to list", [".", "src/components"]).default("."),
    recursive: z
      .boolean()
      .default(false)
      .describe("List sub-folders too, breadth first, down to depth; symbolic links are listed, never followed")
      .meta({ examples: [false, true] }),
    depth: z
      .number()
      .int()
      .min(1)
      .max(20)
      .optional()
      .describe(
        `How many levels to list, 1 being the folder itself; only with recursive: true (default ${DEFAULT_DEPTH})`,
      )
      .meta({ examples: [2] }),
    limit: z
      .number()
      .int()
      .min(1)
      .max(5000)
      .default(500)
      .describe("The most entries to return; truncated says whether there were more")
      .meta({ examples: [100] }),
  })
  .strict()
  // The same rule as the published if/then below, for zod: zod and the published schema agree.
  .superRefine((value, ctx) => {
    if (value.depth !== undefined && value.recursive !== true) {
      ctx.addIssue({ code: "custom", path: ["recursive"], message: "depth needs recursive: true" });
    }
  })
  .meta({
    // depth only means something for a recursive listing.
    allOf: [
      {
        if: { required: ["depth"] },
        // biome-ignore lint/suspicious/noThenProperty: "then" is the JSON Schema keyword, not a thenable
        then: { properties: { recursive: { const: true } }, required: ["recursive"] },
      },
    ],
  });

const EntryType = z.enum(["file", "directory", "symlink", "other"]);

export const ListDirectoryOutput = z.object({
  path: z.string().describe("The real, absolute path of the folder listed"),
  entries: z.array(
    z.object({
      path: z.string().describe("Relative to the listed folder, with forward slashes"),
      type: EntryType,
      size: z.number().int().nullable().describe("Bytes, for files; null otherwise"),
      modified: z.string().describe("ISO timestamp"),
    }),
  ),
  truncated: z.boolean().describe("True when the limit stopped the listing"),
  depth: z.number().int().describe("How many levels were listed"),
});

export type ListDirectoryParams = z.output<typeof ListDirectoryInput>;
export type ListDirectoryData = z.output<typeof ListDirectoryOutput>;
type Entry = ListDirectoryData["entries"][number];

/**
 * Lists a folder inside the roots, optionally recursively. Every folder is opened through its checked parent and a
 * link is listed, never followed, so a folder swapped for a link meanwhile cannot lead the listing outside.
 */
export async function listDirectory(params: ListDirectoryParams, ctx: SkillContext<FilesConfig>) {
  ctx.signal.throwIfAborted();
  if (params.depth !== undefined && params.recursive !== true) {
    throw new SkillError({
      code: "ARGUMENT_INVALID",
      field: "/depth",
      message: "depth applies to recursive listings only; pass recursive: true or leave depth out",
    });
  }
  const jail = await confinementFor(ctx.config);
  const target = await jail.resolve(params.path, "/path");
  let top: ConfinedDirectory;
  try {
    top = await jail.openDirectory(target);
  } catch (error) {
    if (isSkillError(error) && error.code === "ARGUMENT_INVALID" && target.stats !== undefined) {
      const info = await jail.stat(target).catch(() => undefined);
      if (info !== undefined && !info.isDirectory()) {
        throw new SkillError({
          code: "ARGUMENT_INVALID",
          field: "/path",
          message: `"${printablePath(params.path)}" is a file; read it with read_file or look at it with file_info`,
        });
      }
    }
    throw error;
  }
  const depth = params.recursive ? (params.depth ?? DEFAULT_DEPTH) : 1;
  const entries: Entry[] = [];
  let truncated = false;
  const warnings: string[] = [];
  try {
    // Breadth first, so a limit keeps the shallow entries; a level holds the names leading to each folder.
    let level: string[][] = [[]];
    for (let current = 1; current <= depth && level.length > 0 && !truncated; current++) {
      const next: string[][] = [];
      for (const names of level) {
        ctx.signal.throwIfAborted();
        const relative = names.join("/");
        let dir: ConfinedDirectory;
        let children: Dirent[];
        try {
          dir = await openBelow(top, names);
        } catch (error) {
          warnings.push(`could not list ${relative}: ${isSkillError(error) ? error.message : "error"}`);
          continue;
        }
        try {
          children = await dir.list();
          children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
          for (const child of children) {
            if (entries.length >= params.limit) {
              truncated = true;
              break;
            }
            const childPath = relative === "" ? child.name : `${relative}/${child.name}`;
            const info = await dir.lstat(child.name);
            if (info === undefined) continue; // removed while listing
            const entry = describe(info, childPath);
            entries.push(entry);
            if (entry.type === "directory") next.push([...names, child.name]);
            if (entries.length % 200 === 0) ctx.progress(entries.length, undefined, `listed ${entries.length} entries`);
          }
        } catch (error) {
          if (relative === "") throw error;
          warnings.push(`could not list ${relative}: ${isSkillError(error) ? error.message : "error"}`);
        } finally {
          if (dir !== top) await dir.close();
        }
        if (truncated) break;
      }
      level = next;
    }
  } finally {
    await top.close();
  }
  const data: ListDirectoryData = { path: top.path, entries, truncated, depth };
  const message = `${entries.length} entries in ${top.path}${truncated ? ` (limit ${params.limit} reached; list a sub-folder or raise limit)` : ""}`;
  return withEvidence(data, [top.path], { message, warnings });
}

export const listDirectoryTool = defineTool({
  name: "list_directory",
  title: "List directory",
  description:
    "List a folder inside the allowed folders: names relative to it, type (file, directory, symlink, other), size and modification time. With recursive: true it lists sub-folders breadth first down to depth; symbolic links are shown, never followed.",
  input: ListDirectoryInput,
  output: ListDirectoryOutput,
  risk: "read_only",
  annotations: { idempotentHint: true, openWorldHint: false },
  examples: [
    { path: ".", recursive: false, limit: 500 },
    { path: "src", recursive: true, depth: 2, limit: 200 },
  ],
  buildBrief: (p) =>
    `List ${p.path}${p.recursive ? ` recursively (depth ${p.depth ?? DEFAULT_DEPTH})` : ""}, at most ${p.limit} entries`,
  run: listDirectory,
});

// --- internal ---

/** Opens the folder `names` below `top`, one checked step at a time, never through a link. */
async function openBelow(top: ConfinedDirectory, names: readonly string[]): Promise<ConfinedDirectory> {
  let dir = top;
  try {
    for (const name of names) {
      const next = await dir.openDirectory(name);
      if (dir !== top) await dir.close();
      dir = next;
    }
    return dir;
  } catch (error) {
    if (dir !== top) await dir.close();
    throw error;
  }
}

function describe(info: Stats, relative: string): Entry {
  const type = info.isSymbolicLink() ? "symlink" : info.isDirectory() ? "directory" : info.isFile() ? "file" : "other";
  return { path: relative, type, size: type === "file" ? info.size : null, modified: info.mtime.toISOString() };
}

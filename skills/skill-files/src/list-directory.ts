import type { Dirent } from "node:fs";
import { lstat, readdir, stat } from "node:fs/promises";
import path from "node:path";
import type { SkillContext } from "@skillport/core";
import { defineTool, SkillError, withEvidence } from "@skillport/core";
import { z } from "zod";
import type { FilesConfig } from "./config.js";
import { errnoOf, fsError, printable, resolvePath } from "./roots.js";
import { pathField } from "./schema.js";

/** How deep a recursive listing goes when `depth` is not given. */
export const DEFAULT_DEPTH = 3;

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

/** Lists a folder inside the roots, optionally recursively; never follows a link out of it. */
export async function listDirectory(params: ListDirectoryParams, ctx: SkillContext<FilesConfig>) {
  ctx.signal.throwIfAborted();
  if (params.depth !== undefined && params.recursive !== true) {
    throw new SkillError({
      code: "ARGUMENT_INVALID",
      field: "/depth",
      message: "depth applies to recursive listings only; pass recursive: true or leave depth out",
    });
  }
  const resolved = await resolvePath(ctx.config, params.path, "/path");
  try {
    if (!(await stat(resolved.real)).isDirectory()) {
      throw new SkillError({
        code: "ARGUMENT_INVALID",
        field: "/path",
        message: `"${printable(params.path)}" is a file; read it with read_file or look at it with file_info`,
      });
    }
  } catch (error) {
    throw fsError(error, resolved, "/path");
  }
  const depth = params.recursive ? (params.depth ?? DEFAULT_DEPTH) : 1;
  const entries: Entry[] = [];
  let truncated = false;
  const warnings: string[] = [];
  // Breadth first, so a limit keeps the shallow entries.
  let level: string[] = [""];
  for (let current = 1; current <= depth && level.length > 0 && !truncated; current++) {
    const next: string[] = [];
    for (const relative of level) {
      ctx.signal.throwIfAborted();
      let children: Dirent[];
      try {
        children = await readdir(path.join(resolved.real, relative), { withFileTypes: true });
      } catch (error) {
        if (relative === "") throw fsError(error, resolved, "/path");
        warnings.push(`could not list ${relative}: ${errnoOf(error) ?? "error"}`);
        continue;
      }
      children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const child of children) {
        if (entries.length >= params.limit) {
          truncated = true;
          break;
        }
        const childPath = relative === "" ? child.name : `${relative}/${child.name}`;
        const entry = await describe(path.join(resolved.real, childPath), childPath);
        if (entry === undefined) continue; // removed while listing
        entries.push(entry);
        if (entry.type === "directory") next.push(childPath);
        if (entries.length % 200 === 0) ctx.progress(entries.length, undefined, `listed ${entries.length} entries`);
      }
      if (truncated) break;
    }
    level = next;
  }
  const data: ListDirectoryData = { path: resolved.real, entries, truncated, depth };
  const message = `${entries.length} entries in ${resolved.real}${truncated ? ` (limit ${params.limit} reached; list a sub-folder or raise limit)` : ""}`;
  return withEvidence(data, [resolved.real], { message, warnings });
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

async function describe(full: string, relative: string): Promise<Entry | undefined> {
  let info: Awaited<ReturnType<typeof lstat>>;
  try {
    info = await lstat(full);
  } catch {
    return undefined;
  }
  const type = info.isSymbolicLink() ? "symlink" : info.isDirectory() ? "directory" : info.isFile() ? "file" : "other";
  return { path: relative, type, size: type === "file" ? info.size : null, modified: info.mtime.toISOString() };
}

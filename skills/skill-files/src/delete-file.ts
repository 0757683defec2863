import { rm, rmdir, unlink } from "node:fs/promises";
import type { SkillContext } from "@skillport/core";
import { defineTool, result, SkillError } from "@skillport/core";
import { z } from "zod";
import type { FilesConfig } from "./config.js";
import { errnoOf, fsError, loadRoots, printable, resolvePath } from "./roots.js";
import { pathField } from "./schema.js";

export const DeleteFileInput = z
  .object({
    path: pathField("The file, link or folder to delete", ["build/old-report.pdf"]),
    recursive: z
      .boolean()
      .default(false)
      .describe("Delete a folder with everything in it; without it only files, links and empty folders go")
      .meta({ examples: [false, true] }),
  })
  .strict();

export const DeleteFileOutput = z.object({
  path: z.string().describe("The absolute path deleted"),
  type: z.enum(["file", "directory", "symlink", "other"]),
});

export type DeleteFileParams = z.output<typeof DeleteFileInput>;
export type DeleteFileData = z.output<typeof DeleteFileOutput>;

/**
 * Deletes a file, a symbolic link (the link, never what it points to) or a folder (empty, or with `recursive`)
 * inside the roots. A root itself cannot be deleted.
 */
export async function deleteFile(params: DeleteFileParams, ctx: SkillContext<FilesConfig>) {
  ctx.signal.throwIfAborted();
  const resolved = await resolvePath(ctx.config, params.path, "/path");
  const shown = printable(params.path);
  if (resolved.stats === undefined) {
    throw new SkillError({ code: "NOT_FOUND", field: "/path", message: `"${shown}" does not exist` });
  }
  const roots = await loadRoots(ctx.config);
  if (roots.some((r) => r.real === resolved.entry)) {
    throw new SkillError({
      code: "PERMISSION_DENIED",
      field: "/path",
      message: `"${shown}" is a root of this instance and cannot be deleted; delete what is inside it instead`,
    });
  }
  const stats = resolved.stats;
  const type = stats.isSymbolicLink()
    ? "symlink"
    : stats.isDirectory()
      ? "directory"
      : stats.isFile()
        ? "file"
        : "other";
  try {
    if (type !== "directory") await unlink(resolved.entry);
    else if (params.recursive) await rm(resolved.entry, { recursive: true });
    else await rmdir(resolved.entry);
  } catch (error) {
    if (errnoOf(error) === "ENOTEMPTY" || errnoOf(error) === "EEXIST") {
      throw new SkillError({
        code: "CONFLICT",
        field: "/recursive",
        message: `the folder "${shown}" is not empty; pass recursive: true to delete it with everything inside`,
      });
    }
    throw fsError(error, resolved, "/path");
  }
  const data: DeleteFileData = { path: resolved.entry, type };
  return result(data, { message: `Deleted ${type} ${resolved.entry}`, evidencePaths: [resolved.entry] });
}

export const deleteFileTool = defineTool({
  name: "delete_file",
  title: "Delete file",
  description:
    "Delete a file, a symbolic link (only the link) or an empty folder inside the allowed folders; a folder with contents only with recursive: true. Cannot be undone, and a root itself cannot be deleted.",
  input: DeleteFileInput,
  output: DeleteFileOutput,
  risk: "dangerous",
  annotations: { idempotentHint: false, openWorldHint: false },
  examples: [
    { path: "build/old-report.pdf", recursive: false },
    { path: "build/tmp", recursive: true },
  ],
  buildBrief: (p) => `Delete ${p.path}${p.recursive ? " and everything inside it" : ""}`,
  run: deleteFile,
});

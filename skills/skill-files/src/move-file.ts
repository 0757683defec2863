import { link, lstat, rename, unlink } from "node:fs/promises";
import type { SkillContext } from "@skillport/core";
import { defineTool, result, SkillError } from "@skillport/core";
import { z } from "zod";
import type { FilesConfig } from "./config.js";
import type { ResolvedPath } from "./roots.js";
import { errnoOf, fsError, isInside, loadRoots, printable, resolvePath } from "./roots.js";
import { pathField } from "./schema.js";
import { ensureFolder } from "./write-file.js";

export const MoveFileInput = z
  .object({
    source: pathField("The file, link or folder to move", ["drafts/post.md"]),
    destination: pathField("Its new path, including the new name (not a folder to move it into)", [
      "posts/2026-03-01-post.md",
    ]),
    overwrite: z
      .boolean()
      .default(false)
      .describe("Replace a file already at the destination; a folder there is never replaced")
      .meta({ examples: [false, true] }),
    create_directories: z
      .boolean()
      .default(false)
      .describe("Create missing folders on the way to the destination (inside the roots only)")
      .meta({ examples: [false, true] }),
  })
  .strict();

export const MoveFileOutput = z.object({
  source: z.string().describe("The absolute path it had"),
  destination: z.string().describe("The absolute path it has now"),
  replaced: z.boolean().describe("True when a file at the destination was replaced"),
});

export type MoveFileParams = z.output<typeof MoveFileInput>;
export type MoveFileData = z.output<typeof MoveFileOutput>;

/**
 * Moves or renames a file, link or folder within the roots, in one step (rename). Without `overwrite` an existing
 * destination is never replaced, also not by a file created at the same moment (link, then unlink, for files).
 */
export async function moveFile(params: MoveFileParams, ctx: SkillContext<FilesConfig>) {
  ctx.signal.throwIfAborted();
  const source = await resolvePath(ctx.config, params.source, "/source");
  const destination = await resolvePath(ctx.config, params.destination, "/destination");
  if (source.stats === undefined) {
    throw new SkillError({
      code: "NOT_FOUND",
      field: "/source",
      message: `"${printable(params.source)}" does not exist`,
    });
  }
  const roots = await loadRoots(ctx.config);
  if (roots.some((r) => r.real === source.entry || r.real === destination.entry)) {
    throw new SkillError({
      code: "PERMISSION_DENIED",
      field: roots.some((r) => r.real === source.entry) ? "/source" : "/destination",
      message: "a root of this instance cannot be moved or replaced; move what is inside it instead",
    });
  }
  if (destination.entry === source.entry) {
    throw new SkillError({
      code: "ARGUMENT_INVALID",
      field: "/destination",
      message: "source and destination are the same; give the new path",
    });
  }
  if (source.stats.isDirectory() && isInside(destination.entry, source.entry)) {
    throw new SkillError({
      code: "ARGUMENT_INVALID",
      field: "/destination",
      message: `cannot move the folder "${printable(params.source)}" into itself`,
    });
  }
  const replaced = await checkDestination(destination, params.overwrite);
  await ensureFolder(destination, params.create_directories);
  ctx.signal.throwIfAborted();
  try {
    if (params.overwrite || source.stats.isDirectory()) {
      if (!params.overwrite && (await exists(destination.entry))) throw conflict(params.destination);
      await rename(source.entry, destination.entry);
    } else {
      await moveWithoutReplacing(source.entry, destination.entry, params.destination);
    }
  } catch (error) {
    if (errnoOf(error) === "EXDEV") {
      throw new SkillError({
        code: "ARGUMENT_INVALID",
        field: "/destination",
        message:
          "source and destination are on different file systems; copy with read_file and write_file, then delete_file the source",
      });
    }
    if (errnoOf(error) === "EEXIST") throw conflict(params.destination);
    throw fsError(error, source, "/source");
  }
  const data: MoveFileData = { source: source.entry, destination: destination.entry, replaced };
  return result(data, {
    message: `Moved ${source.entry} to ${destination.entry}${replaced ? " (replaced the file there)" : ""}`,
    evidencePaths: [destination.entry],
  });
}

export const moveFileTool = defineTool({
  name: "move_file",
  title: "Move file",
  description:
    "Move or rename a file, symbolic link or folder within the allowed folders, in one step. destination is the new path, not a folder to move into. An existing file there is only replaced with overwrite: true; a folder there never is.",
  input: MoveFileInput,
  output: MoveFileOutput,
  risk: "write",
  annotations: { idempotentHint: false, openWorldHint: false },
  examples: [
    { source: "drafts/post.md", destination: "posts/2026-03-01-post.md", overwrite: false, create_directories: true },
  ],
  buildBrief: (p) => `Move ${p.source} to ${p.destination}${p.overwrite ? ", replacing what is there" : ""}`,
  run: moveFile,
});

// --- internal ---

/** Whether a file will be replaced; refuses a destination that exists without overwrite, or that is a folder. */
async function checkDestination(destination: ResolvedPath, overwrite: boolean): Promise<boolean> {
  const stats = destination.stats;
  if (stats === undefined) return false;
  if (stats.isDirectory()) {
    throw new SkillError({
      code: "CONFLICT",
      field: "/destination",
      message: `"${printable(destination.requested)}" is an existing folder; give the full new path including the name`,
    });
  }
  if (!overwrite) throw conflict(destination.requested);
  return true;
}

/** link() refuses an existing destination atomically; where hard links are impossible, check then rename. */
async function moveWithoutReplacing(from: string, to: string, shown: string): Promise<void> {
  try {
    await link(from, to);
  } catch (error) {
    const code = errnoOf(error);
    if (code === "EEXIST") throw conflict(shown);
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP" && code !== "EMLINK") throw error;
    if (await exists(to)) throw conflict(shown);
    await rename(from, to);
    return;
  }
  await unlink(from);
}

async function exists(file: string): Promise<boolean> {
  try {
    await lstat(file);
    return true;
  } catch {
    return false;
  }
}

function conflict(shown: string): SkillError {
  return new SkillError({
    code: "CONFLICT",
    field: "/destination",
    message: `"${printable(shown)}" already exists; pass overwrite: true to replace it, or choose another path`,
  });
}

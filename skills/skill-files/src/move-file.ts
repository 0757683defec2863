import path from "node:path";
import type { SkillContext } from "@skillport/core";
import { defineTool, isSkillError, result, SkillError } from "@skillport/core";
import type { ConfinedPath } from "@skillport/core/confine";
import { errnoOf, isInside, printablePath } from "@skillport/core/confine";
import { z } from "zod";
import type { FilesConfig } from "./config.js";
import { confinementFor, openTargetFolder } from "./confinement.js";
import { pathField } from "./schema.js";

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
 * Moves or renames a file, link or folder within the roots, in one step (rename), through the checked folders of
 * both ends. Without `overwrite` an existing destination is never replaced, also not by a file created at the same
 * moment (link, then unlink, for files). Nothing moves into or out of a protected name (`.git`).
 */
export async function moveFile(params: MoveFileParams, ctx: SkillContext<FilesConfig>) {
  ctx.signal.throwIfAborted();
  const jail = await confinementFor(ctx.config);
  const source = await jail.resolve(params.source, "/source");
  const destination = await jail.resolve(params.destination, "/destination");
  if (source.stats === undefined) {
    throw new SkillError({
      code: "NOT_FOUND",
      field: "/source",
      message: `"${printablePath(params.source)}" does not exist`,
    });
  }
  if (jail.roots.some((r) => r === source.entry || r === destination.entry)) {
    throw new SkillError({
      code: "PERMISSION_DENIED",
      field: jail.roots.some((r) => r === source.entry) ? "/source" : "/destination",
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
      message: `cannot move the folder "${printablePath(params.source)}" into itself`,
    });
  }
  jail.assertWritable(source);
  jail.assertWritable(destination);
  const replaced = checkDestination(destination, params.overwrite);
  const from = await openTargetFolder(jail, source, { create: false, entry: true });
  try {
    const to = await openTargetFolder(jail, destination, { create: params.create_directories, entry: true });
    try {
      ctx.signal.throwIfAborted();
      await from.rename(path.basename(source.entry), to, path.basename(destination.entry), {
        overwrite: params.overwrite,
      });
    } catch (error) {
      if (isSkillError(error) && error.code === "ARGUMENT_INVALID" && errnoOf(error.cause) === "EXDEV") {
        throw new SkillError({
          code: "ARGUMENT_INVALID",
          field: "/destination",
          message:
            "source and destination are on different file systems; copy with read_file and write_file, then delete_file the source",
        });
      }
      if (isSkillError(error) && error.code === "CONFLICT") throw conflict(params.destination);
      throw error;
    } finally {
      await to.close();
    }
  } finally {
    await from.close();
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
function checkDestination(destination: ConfinedPath, overwrite: boolean): boolean {
  const stats = destination.stats;
  if (stats === undefined) return false;
  if (stats.isDirectory()) {
    throw new SkillError({
      code: "CONFLICT",
      field: "/destination",
      message: `"${printablePath(destination.requested)}" is an existing folder; give the full new path including the name`,
    });
  }
  if (!overwrite) throw conflict(destination.requested);
  return true;
}

function conflict(shown: string): SkillError {
  return new SkillError({
    code: "CONFLICT",
    field: "/destination",
    message: `"${printablePath(shown)}" already exists; pass overwrite: true to replace it, or choose another path`,
  });
}

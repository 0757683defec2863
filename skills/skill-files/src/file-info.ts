import type { SkillContext } from "@skillport/core";
import { defineTool, SkillError, withEvidence } from "@skillport/core";
import { printablePath } from "@skillport/core/confine";
import { z } from "zod";
import type { FilesConfig } from "./config.js";
import { confinementFor } from "./confinement.js";
import { pathField } from "./schema.js";

export const FileInfoInput = z
  .object({
    path: pathField("The file or folder to describe", ["notes/todo.md", "."]),
  })
  .strict();

export const FileInfoOutput = z.object({
  path: z.string().describe("The entry's absolute path; a symbolic link keeps its own name here"),
  real_path: z.string().describe("The real path, every link resolved"),
  root: z.string().describe("The root that holds it"),
  type: z.enum(["file", "directory", "other"]).describe("What the path leads to, links followed"),
  symbolic_link: z.boolean().describe("True when the path itself is a symbolic link (inside the roots)"),
  size: z.number().int().describe("Bytes"),
  mode: z.string().describe('Permission bits in octal, e.g. "0644"'),
  modified: z.string().describe("ISO timestamp"),
  created: z.string().nullable().describe("ISO timestamp, where the file system records it"),
});

export type FileInfoParams = z.output<typeof FileInfoInput>;
export type FileInfoData = z.output<typeof FileInfoOutput>;

/** Describes a file or folder inside the roots: type, size, permissions, times, and where a link leads. */
export async function fileInfo(params: FileInfoParams, ctx: SkillContext<FilesConfig>) {
  ctx.signal.throwIfAborted();
  const jail = await confinementFor(ctx.config);
  const target = await jail.resolve(params.path, "/path");
  if (target.stats === undefined) {
    throw new SkillError({
      code: "NOT_FOUND",
      field: "/path",
      message: `"${printablePath(params.path)}" does not exist`,
    });
  }
  // Read through the target's checked folder, not by its path string.
  const info = await jail.stat(target);
  const data: FileInfoData = {
    path: target.entry,
    real_path: target.real,
    root: target.root,
    type: info.isFile() ? "file" : info.isDirectory() ? "directory" : "other",
    symbolic_link: target.stats.isSymbolicLink(),
    size: info.size,
    mode: `0${(info.mode & 0o7777).toString(8)}`,
    modified: info.mtime.toISOString(),
    created: info.birthtimeMs > 0 ? info.birthtime.toISOString() : null,
  };
  return withEvidence(data, [target.real], { message: `${target.entry} is a ${data.type} of ${info.size} bytes` });
}

export const fileInfoTool = defineTool({
  name: "file_info",
  title: "File info",
  description:
    "Describe a file or folder inside the allowed folders: type, size, permissions, modification and creation time, and its real path when it is a symbolic link. Answers NOT_FOUND when nothing is there.",
  input: FileInfoInput,
  output: FileInfoOutput,
  risk: "read_only",
  annotations: { idempotentHint: true, openWorldHint: false },
  examples: [{ path: "notes/todo.md" }, { path: "." }],
  buildBrief: (p) => `Describe ${p.path}`,
  run: fileInfo,
});

// Any new export added here becomes public API. Use named exports, not wildcards.
import { defineSkill } from "@skillport/core";
import { appendFileTool } from "./append-file.js";
import { FilesConfig } from "./config.js";
import { deleteFileTool } from "./delete-file.js";
import { fileInfoTool } from "./file-info.js";
import { listDirectoryTool } from "./list-directory.js";
import { moveFileTool } from "./move-file.js";
import { readFileTool } from "./read-file.js";
import { writeFileTool } from "./write-file.js";

/**
 * The files skill: read, write, append, list, move, describe and delete files inside the folders (roots) an
 * instance allows. Every path is resolved, links included, and must stay inside a root; writes are atomic.
 *
 * @example
 * // skills.manifest.json
 * { "package": "@skillport/skill-files", "mcp": "files", "config": { "roots": ["./workspace"] } }
 */
export const register = defineSkill({
  name: "files",
  description: "Files inside the folders an instance allows, with atomic writes and size limits.",
  config: FilesConfig,
  tools: [readFileTool, writeFileTool, appendFileTool, listDirectoryTool, moveFileTool, fileInfoTool, deleteFileTool],
});

export type { AppendFileData, AppendFileParams } from "./append-file.js";
export { AppendFileInput, AppendFileOutput, appendFile } from "./append-file.js";
export { FilesConfig } from "./config.js";
export type { DeleteFileData, DeleteFileParams } from "./delete-file.js";
export { DeleteFileInput, DeleteFileOutput, deleteFile } from "./delete-file.js";
export type { FileInfoData, FileInfoParams } from "./file-info.js";
export { FileInfoInput, FileInfoOutput, fileInfo } from "./file-info.js";
export type { ListDirectoryData, ListDirectoryParams } from "./list-directory.js";
export { ListDirectoryInput, ListDirectoryOutput, listDirectory } from "./list-directory.js";
export type { MoveFileData, MoveFileParams } from "./move-file.js";
export { MoveFileInput, MoveFileOutput, moveFile } from "./move-file.js";
export type { ReadFileData, ReadFileParams } from "./read-file.js";
export { ReadFileInput, ReadFileOutput, readFile } from "./read-file.js";
export type { WriteFileData, WriteFileParams } from "./write-file.js";
export { WriteFileInput, WriteFileOutput, writeFile } from "./write-file.js";

import type { SkillContext, TemplateResource } from "@skillport/core";
import { defineResourceTemplate } from "@skillport/core";
import { z } from "zod";
import type { NotesConfig } from "./config.js";
import { listNotes, loadNote, openVault, resolveNotePath } from "./vault.js";

/** The most paths one completion suggests. */
const MAX_SUGGESTIONS = 100;

export const NoteParams = z
  .object({
    path: z
      .string()
      .min(1)
      .max(500)
      .describe("The note's path relative to the vault")
      .meta({ examples: ["AI-Agent/mcp-basics.md"] }),
  })
  .strict();

export type NoteParams = z.output<typeof NoteParams>;

/** Every note the instance allows (every folder of the "all-allowed" scope), for resources/list. */
export async function listNoteResources(ctx: SkillContext<NotesConfig>): Promise<TemplateResource[]> {
  const vault = await openVault(ctx.config, "all-allowed");
  const paths = await listNotes(vault, ctx.signal);
  return paths.map((path) => ({ params: { path }, name: path.split("/").pop() ?? path, mimeType: "text/markdown" }));
}

/** Note paths starting with what the user typed (ignoring case), then those containing it. */
export async function completeNotePath(value: string, ctx: SkillContext<NotesConfig>): Promise<string[]> {
  const vault = await openVault(ctx.config, "all-allowed");
  const paths = await listNotes(vault, ctx.signal);
  const typed = value.toLowerCase();
  const starting = paths.filter((p) => p.toLowerCase().startsWith(typed));
  const containing = paths.filter((p) => !p.toLowerCase().startsWith(typed) && p.toLowerCase().includes(typed));
  return [...starting, ...containing].slice(0, MAX_SUGGESTIONS);
}

/** The Markdown of one allowed note, read through the same confinement as read_note. */
export async function readNoteResource(params: NoteParams, ctx: SkillContext<NotesConfig>): Promise<string> {
  ctx.signal.throwIfAborted();
  const vault = await openVault(ctx.config, "all-allowed");
  const { relative, target } = await resolveNotePath(vault, params.path, "/path");
  return (await loadNote(vault, relative, target)).content;
}

export const noteTemplate = defineResourceTemplate({
  name: "note",
  uriTemplate: "notes://{+path}",
  title: "Note",
  description: "One Markdown note of the allowed folders, by its path relative to the vault (AI-Agent/mcp-basics.md).",
  mimeType: "text/markdown",
  params: NoteParams,
  list: listNoteResources,
  complete: { path: completeNotePath },
  read: readNoteResource,
});

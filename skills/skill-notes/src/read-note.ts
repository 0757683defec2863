import type { SkillContext } from "@skillport/core";
import { defineTool, withEvidence } from "@skillport/core";
import { z } from "zod";
import type { NotesConfig } from "./config.js";
import { loadNote, openVault, resolveNotePath } from "./vault.js";

export const ReadNoteInput = z
  .object({
    path: z
      .string()
      .min(1)
      .max(500)
      .describe("The note's path relative to the vault, as search_notes returns it")
      .meta({ examples: ["AI-Agent/mcp-basics.md"] }),
  })
  .strict();

export const ReadNoteOutput = z.object({
  path: z.string(),
  title: z.string(),
  content: z.string().describe("The whole Markdown file, frontmatter included"),
  frontmatter: z.record(z.string(), z.unknown()).describe("The YAML frontmatter as JSON; {} when there is none"),
});

export type ReadNoteParams = z.output<typeof ReadNoteInput>;

/** Reads one note inside the allowed folders, with its frontmatter. */
export async function readNote(params: ReadNoteParams, ctx: SkillContext<NotesConfig>) {
  ctx.signal.throwIfAborted();
  const vault = await openVault(ctx.config, "all-allowed");
  const { relative, target } = await resolveNotePath(vault, params.path, "/path");
  const note = await loadNote(vault, relative, target);
  return withEvidence(
    { path: note.path, title: note.title, content: note.content, frontmatter: note.frontmatter },
    [note.path],
    {
      message: `Read “${note.title}” (${note.path})`,
    },
  );
}

export const readNoteTool = defineTool({
  name: "read_note",
  title: "Read note",
  description:
    "Read one Markdown note by its vault-relative path (as search_notes returns it). Returns the content and the frontmatter. Only notes in allowed folders can be read.",
  input: ReadNoteInput,
  output: ReadNoteOutput,
  risk: "read_only",
  annotations: { idempotentHint: true, openWorldHint: false },
  examples: [{ path: "AI-Agent/mcp-basics.md" }],
  buildBrief: (p) => `Read note ${p.path}`,
  run: readNote,
});

import path from "node:path";
import type { SkillContext } from "@skillport/core";
import { defineTool, isSkillError, result, SkillError } from "@skillport/core";
import { createConfinement } from "@skillport/core/confine";
import { stringify } from "yaml";
import { z } from "zod";
import type { NotesConfig } from "./config.js";
import { loadNote, openVault, resolveNotePath } from "./vault.js";

export const CreateStudyTaskInput = z
  .object({
    title: z
      .string()
      .min(1)
      .max(120)
      // Linear: leading spaces, then a visible character, then anything but control characters (no overlap to backtrack).
      .regex(/^[^\S\p{Cc}]*[^\p{Cc}\s][^\p{Cc}]*$/u, "title must be one line with a visible character")
      .describe("What to study, as the task's title")
      .meta({ examples: ["Review the MCP tool annotations"] }),
    source_note: z
      .string()
      .min(1)
      .max(500)
      .describe("The vault-relative path of an existing note the task is about")
      .meta({ examples: ["AI-Agent/mcp-basics.md"] }),
    due_date: z.iso
      .date()
      .optional()
      .describe("When the task is due, as a real calendar date YYYY-MM-DD")
      .meta({ examples: ["2026-12-15"] }),
  })
  .strict();

export const CreateStudyTaskOutput = z.object({
  path: z.string().describe("The new task note, relative to the vault"),
  title: z.string(),
  source: z.string(),
  due: z.string().nullable(),
  created: z.string().describe("ISO timestamp"),
});

export type CreateStudyTaskParams = z.output<typeof CreateStudyTaskInput>;

const MAX_NAME_ATTEMPTS = 100;

/**
 * Writes a study task note into the tasks folder, through the vault's confinement: the folder is created (when
 * missing) and the note written through checked folders, so a tasks folder linked out of the vault writes nothing
 * there. Never overwrites: a taken name gets a numbered suffix.
 */
export async function createStudyTask(params: CreateStudyTaskParams, ctx: SkillContext<NotesConfig>) {
  ctx.signal.throwIfAborted();
  const scoped = await openVault(ctx.config, "all-allowed");
  const source = await resolveNotePath(scoped, params.source_note, "/source_note");
  const sourceNote = await loadNote(scoped, source.relative, source.target);
  const outside = new SkillError({
    code: "PERMISSION_DENIED",
    message: `the tasks folder "${ctx.config.tasksFolder}" is outside the vault; fix "tasksFolder" in the manifest config`,
  });
  const jail = await createConfinement({ roots: [scoped.vault], absolutePaths: false, hint: "fix tasksFolder" });
  const created = new Date().toISOString();
  const base = `${created.slice(0, 10)}-${slug(params.title)}`;
  // Checked before anything is created, so nothing is made outside; then created through checked folders.
  const first = await jail.resolve(`${ctx.config.tasksFolder}/${base}.md`, "/tasksFolder").catch((error: unknown) => {
    throw isSkillError(error) && error.code === "PERMISSION_DENIED" ? outside : error;
  });
  jail.assertWritable(first);
  const folder = await jail.openParent(first, { create: true }).catch((error: unknown) => {
    throw isSkillError(error) && error.code === "PERMISSION_DENIED" ? outside : error;
  });
  const frontmatter = {
    title: params.title,
    source: source.relative,
    due: params.due_date ?? null,
    created,
    type: "study-task",
  };
  const text = `---\n${stringify(frontmatter)}---\n\n# ${params.title}\n\nStudy [[${source.relative}]] (${sourceNote.title}).\n`;
  try {
    for (let attempt = 1; attempt <= MAX_NAME_ATTEMPTS; attempt++) {
      ctx.signal.throwIfAborted();
      const name = attempt === 1 ? `${base}.md` : `${base}-${attempt}.md`;
      try {
        await folder.writeAtomic(name, Buffer.from(text, "utf8"), { overwrite: false, signal: ctx.signal });
      } catch (error) {
        if (isSkillError(error) && error.code === "CONFLICT") continue; // taken: never overwrite
        throw error;
      }
      const relative = path.relative(scoped.vault, path.join(folder.path, name)).split(path.sep).join("/");
      return result(
        { path: relative, title: params.title, source: source.relative, due: params.due_date ?? null, created },
        { message: `Created study task ${relative}`, evidencePaths: [relative, source.relative] },
      );
    }
  } finally {
    await folder.close();
  }
  throw new SkillError({
    code: "CONFLICT",
    message: `${MAX_NAME_ATTEMPTS} task notes named "${base}" already exist; choose another title`,
    field: "/title",
  });
}

export const createStudyTaskTool = defineTool({
  name: "create_study_task",
  title: "Create study task",
  description:
    "Create a study task note about an existing note, with an optional due date. Writes a new Markdown file in the tasks folder and never overwrites one; returns its path.",
  input: CreateStudyTaskInput,
  output: CreateStudyTaskOutput,
  risk: "write",
  annotations: { idempotentHint: false, openWorldHint: false },
  examples: [
    { title: "Review the MCP tool annotations", source_note: "AI-Agent/mcp-basics.md", due_date: "2026-12-15" },
  ],
  buildBrief: (p) => `Create study task “${p.title}” about ${p.source_note}${p.due_date ? `, due ${p.due_date}` : ""}`,
  run: createStudyTask,
});

// --- internal ---

/** Letters and digits of any script survive (Chinese titles stay readable); the rest becomes "-". */
function slug(title: string): string {
  const cleaned = title
    .normalize("NFKC")
    .toLocaleLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "-")
    .replace(/^-+|-+$/g, "");
  // Cut by code points, never inside a surrogate pair.
  const short = Array.from(cleaned).slice(0, 60).join("").replace(/-+$/, "");
  return short === "" ? "task" : short;
}

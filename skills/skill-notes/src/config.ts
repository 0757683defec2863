import { z } from "zod";

/** The scopes a caller may search in. Each maps to folders of the vault in the instance config. */
export const SCOPES = ["ai-agent", "all-allowed"] as const;
export type ScopeName = (typeof SCOPES)[number];

const Folders = z
  .array(z.string().min(1).max(200))
  .min(1)
  .max(50)
  .describe("Folders of the vault, relative to it, that this scope may read");

export const NotesConfig = z
  .object({
    vault: z
      .string()
      .min(1)
      .meta({ format: "path", description: "The folder holding the Markdown notes", examples: ["./examples/vault"] }),
    scopes: z
      .object({ "ai-agent": Folders, "all-allowed": Folders })
      .strict()
      .default({ "ai-agent": ["AI-Agent"], "all-allowed": ["AI-Agent", "Learning", "Projects", "Tasks"] })
      .describe("Which vault folders each scope may read; every other folder is off limits"),
    tasksFolder: z
      .string()
      .min(1)
      .max(200)
      .default("Tasks")
      .describe("Where create_study_task writes task notes, relative to the vault"),
    maxNoteBytes: z
      .number()
      .int()
      .min(1024)
      .max(16 * 1024 * 1024)
      .default(1024 * 1024)
      .describe("Notes larger than this are skipped by search and refused by read_note"),
  })
  .strict();

export type NotesConfig = z.output<typeof NotesConfig>;

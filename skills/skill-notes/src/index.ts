// Any new export added here becomes public API. Use named exports, not wildcards.
import { defineSkill } from "@skillport/core";
import { NotesConfig } from "./config.js";
import { createStudyTaskTool } from "./create-study-task.js";
import { noteTemplate } from "./note-resource.js";
import { readNoteTool } from "./read-note.js";
import { searchNotesTool } from "./search-notes.js";

/** The notes skill: search, read and turn Markdown notes into study tasks, inside the folders a scope allows. */
export const register = defineSkill({
  name: "notes",
  description: "Markdown notes in a vault folder, limited to the folders each scope allows.",
  config: NotesConfig,
  tools: [searchNotesTool, readNoteTool, createStudyTaskTool],
  resources: [noteTemplate],
});

export type { ScopeName } from "./config.js";
export { NotesConfig, SCOPES } from "./config.js";
export type { CreateStudyTaskParams } from "./create-study-task.js";
export { CreateStudyTaskInput, CreateStudyTaskOutput, createStudyTask } from "./create-study-task.js";
export { completeNotePath, listNoteResources, NoteParams, readNoteResource } from "./note-resource.js";
export type { ReadNoteParams } from "./read-note.js";
export { ReadNoteInput, ReadNoteOutput, readNote } from "./read-note.js";
export type { SearchNotesData, SearchNotesParams } from "./search-notes.js";
export { SearchNotesInput, SearchNotesOutput, searchNotes } from "./search-notes.js";

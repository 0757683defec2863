import type { SkillContext } from "@skillport/core";
import { defineTool, withEvidence } from "@skillport/core";
import { z } from "zod";
import type { NotesConfig } from "./config.js";
import { SCOPES } from "./config.js";
import { listNotes, loadNote, openVault } from "./vault.js";

export const SearchNotesInput = z
  .object({
    keyword: z
      .string()
      .min(2)
      .max(80)
      .describe("Text to find in note titles and bodies, case-insensitive; English or Chinese")
      .meta({ examples: ["agent", "提示词"] }),
    limit: z.number().int().min(1).max(20).default(5).describe("Most hits to return, best first"),
    scope: z
      .enum(SCOPES)
      .default("ai-agent")
      .describe('Which folders to search: "ai-agent" for the AI-Agent notes, "all-allowed" for every allowed folder'),
  })
  .strict();

export const SearchNotesOutput = z.object({
  hits: z.array(
    z.object({
      path: z.string().describe("Relative to the vault; pass it to read_note"),
      title: z.string(),
      snippet: z.string().describe("The text around the first match"),
      score: z.number().describe("Higher is better: title matches count three times"),
    }),
  ),
  scanned: z.number().int().describe("How many notes were searched"),
});

export type SearchNotesParams = z.output<typeof SearchNotesInput>;
export type SearchNotesData = z.output<typeof SearchNotesOutput>;

/** Finds notes whose title or body contains the keyword, case-insensitively, best first. */
export async function searchNotes(params: SearchNotesParams, ctx: SkillContext<NotesConfig>) {
  ctx.signal.throwIfAborted();
  const needle = params.keyword.toLocaleLowerCase();
  const vault = await openVault(ctx.config, params.scope);
  const paths = await listNotes(vault, ctx.signal);
  const hits: SearchNotesData["hits"] = [];
  let skipped = 0;
  for (const [index, notePath] of paths.entries()) {
    ctx.signal.throwIfAborted();
    let note: Awaited<ReturnType<typeof loadNote>>;
    try {
      note = await loadNote(vault, notePath);
    } catch (error) {
      if (ctx.signal.aborted) throw error;
      skipped++; // an unreadable or oversized note never fails the whole search
      continue;
    }
    const titleHits = occurrences(note.title.toLocaleLowerCase(), needle);
    const bodyHits = occurrences(note.body.toLocaleLowerCase(), needle);
    if (titleHits + bodyHits > 0) {
      hits.push({
        path: note.path,
        title: note.title,
        snippet: snippetOf(note.body, needle),
        score: titleHits * 3 + bodyHits,
      });
    }
    if (index % 50 === 49) ctx.progress(index + 1, paths.length, "searching notes");
  }
  hits.sort((a, b) => b.score - a.score || a.path.localeCompare(b.path));
  const top = hits.slice(0, params.limit);
  const data: SearchNotesData = { hits: top, scanned: paths.length - skipped };
  const warnings = skipped > 0 ? [`${skipped} notes could not be read and were skipped`] : [];
  const message =
    top.length === 0
      ? `No notes match “${params.keyword}” in scope ${params.scope}`
      : `${hits.length} notes match “${params.keyword}”${hits.length > top.length ? `, showing the top ${top.length}` : ""}`;
  return withEvidence(
    data,
    top.map((h) => h.path),
    { message, warnings },
  );
}

export const searchNotesTool = defineTool({
  name: "search_notes",
  title: "Search notes",
  description:
    "Search the allowed Markdown notes by keyword (case-insensitive, English or Chinese). Returns matching note paths with titles, snippets and scores, best first; read one with read_note.",
  input: SearchNotesInput,
  output: SearchNotesOutput,
  risk: "read_only",
  annotations: { idempotentHint: true, openWorldHint: false },
  examples: [
    { keyword: "agent", limit: 5, scope: "ai-agent" },
    { keyword: "提示词", limit: 3, scope: "all-allowed" },
  ],
  buildBrief: (p) => `Search notes for “${p.keyword}” in ${p.scope} (top ${p.limit})`,
  legacy: [
    {
      // Before 0.1.0 the keyword was called "query".
      input: SearchNotesInput.omit({ keyword: true }).extend({ query: SearchNotesInput.shape.keyword }),
      migrate: ({ query, ...rest }) => ({ keyword: query, ...rest }),
      note: 'search_notes: "query" is deprecated; send "keyword" instead',
    },
  ],
  run: searchNotes,
});

// --- internal ---

function occurrences(haystack: string, needle: string): number {
  let count = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) count++;
  return count;
}

const SNIPPET_RADIUS = 60;

function snippetOf(body: string, needle: string): string {
  const flat = body.replace(/\s+/g, " ").trim();
  const at = flat.toLocaleLowerCase().indexOf(needle);
  if (at === -1) return flat.slice(0, SNIPPET_RADIUS * 2) + (flat.length > SNIPPET_RADIUS * 2 ? "…" : "");
  const start = Math.max(0, at - SNIPPET_RADIUS);
  const end = Math.min(flat.length, at + needle.length + SNIPPET_RADIUS);
  return `${start > 0 ? "…" : ""}${flat.slice(start, end)}${end < flat.length ? "…" : ""}`;
}

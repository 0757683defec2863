import type { JsonSchema } from "@skillport/core";
import type { default as SearchableMapClass } from "minisearch/SearchableMap";
import type { ToolEntry } from "../entries/tool-entry.js";
import { SEARCH_HINT } from "../entries/tool-entry.js";
import type { Registry } from "./registry.js";
import { synonymsOf, taskWords } from "./task-words.js";
import type { QueryTerm } from "./term-index.js";
import { createTermIndex } from "./term-index.js";

/** What a search finds: the tools, best first. */
export interface ToolSearch {
  /**
   * The tools that best match what a task needs, written in words (`"delete a file"`), best first: at most `limit`,
   * only those `allowed` lets through (the caller's scopes). The index is built on the first search and follows the
   * table: a change of an upstream server's tools is in the next search.
   */
  search(query: string, limit: number, allowed?: (entry: ToolEntry) => boolean): Promise<ToolEntry[]>;
}

/**
 * A search over a registry's tools, ranked by BM25+ per field as MiniSearch ranks (with prefix and fuzzy matching
 * through MiniSearch's radix tree; see {@link createTermIndex}) over each tool's name split into words, its title,
 * description, search hint, argument names and descriptions; and each server or skill instance ranked by its tools'
 * names and opening sentences and its SKILL.md description, lifting its tools. Nothing is loaded or built before the
 * first search: a host that never searches pays nothing.
 *
 * @example
 * const tools = createToolSearch(host.registry);
 * const found = await tools.search("delete a file", 5); // [files.delete_file, …]
 */
export function createToolSearch(registry: Registry): ToolSearch {
  let built: ToolIndex | undefined;
  let building: Promise<ToolIndex> | undefined;
  // The table changed since the index was last brought up to date.
  let stale = false;
  registry.subscribe(() => {
    stale = true;
  });
  const current = (): ToolIndex | Promise<ToolIndex> => {
    if (built === undefined) {
      building ??= loadRanking().then((ranking) => {
        stale = false;
        built = buildToolIndex(ranking, registry.tools.values(), skillTexts(registry));
        return built;
      });
      return building;
    }
    if (stale) {
      stale = false;
      built.update(registry.tools.values(), skillTexts(registry));
    }
    return built;
  };
  return {
    async search(query, limit, allowed) {
      const index = current();
      return (index instanceof Promise ? await index : index).search(query, limit, allowed);
    },
  };
}

/** The index over one set of tools: searched, and brought up to date with a changed table. */
export interface ToolIndex {
  search(query: string, limit: number, allowed?: (entry: ToolEntry) => boolean): ToolEntry[];
  /** Indexes the tools added or changed (a new listing) and forgets those gone. */
  update(entries: Iterable<ToolEntry>, skills: ReadonlyMap<object, string>): void;
  readonly size: number;
}

/** MiniSearch's radix tree (the vocabulary's prefix and typo matching) and a stemmer, loaded on the first search. */
export interface Ranking {
  SearchableMap: typeof SearchableMapClass;
  stem: (word: string) => string;
}

/** Loads the ranking's libraries. */
export async function loadRanking(): Promise<Ranking> {
  const [{ default: SearchableMap }, { stemmer }] = await Promise.all([
    import("minisearch/SearchableMap"),
    import("stemmer"),
  ]);
  return { SearchableMap, stem: stemmer };
}

/**
 * Builds the index over `entries`; `skills` gives each owner (a skill instance) the text its SKILL.md describes it
 * with. Synchronous: for a benchmark of the build, and for createToolSearch.
 */
export function buildToolIndex(
  ranking: Ranking,
  entries: Iterable<ToolEntry>,
  skills: ReadonlyMap<object, string>,
): ToolIndex {
  const words = wordsOf(ranking.stem);
  const synonyms = synonymsOf(ranking.stem);
  const terms = createTermIndex(ranking.SearchableMap, {
    boosts: FIELDS.map((field) => BOOST[field]),
    bm25: BM25,
    owners: { fields: OWNER_FIELDS.map((field) => FIELDS.indexOf(field)), weight: OWNER_WEIGHT },
  });
  const indexed = new Map<string, ToolEntry>();
  const add = (entry: ToolEntry, cached: Words): void => {
    indexed.set(entry.fullName, entry);
    terms.add(entry.fullName, fieldsOf(entry, cached), entry.instance);
  };
  // A skill's SKILL.md describes all its tools: it is indexed once, as what its instance is about (again on each
  // update: the index forgets an instance whose tools were all gone for a while).
  let described: ReadonlyMap<object, string> = new Map();
  const describe = (next: ReadonlyMap<object, string>, cached: Words): void => {
    for (const owner of described.keys()) if (!next.has(owner)) terms.describe(owner, undefined);
    for (const [owner, text] of next) terms.describe(owner, cached.text(text, SKILL_TERMS));
    described = next;
  };
  const build = cachedWords(words);
  for (const entry of entries) add(entry, build);
  describe(skills, build);
  terms.flush();
  return {
    get size() {
      return indexed.size;
    },
    search(query, limit, allowed) {
      const own = words(taskWords(query), QUERY_TERMS);
      const parts: QueryTerm[] = own.map((term) => ({
        term,
        boost: 1,
        prefix: term.length >= MIN_PREFIX,
        fuzzy: term.length >= MIN_FUZZY,
      }));
      // A synonym counts less than the word the task used, and only as itself.
      const all = new Set(own);
      for (const term of own) {
        for (const other of synonyms.get(term) ?? []) {
          if (all.has(other)) continue;
          all.add(other);
          parts.push({ term: other, boost: SYNONYM, prefix: false, fuzzy: false, word: term });
        }
      }
      const accept =
        allowed === undefined
          ? undefined
          : (name: string) => {
              const entry = indexed.get(name);
              return entry !== undefined && allowed(entry);
            };
      const out: ToolEntry[] = [];
      for (const name of terms.search(parts, limit, accept)) {
        const entry = indexed.get(name);
        if (entry !== undefined) out.push(entry);
      }
      return out;
    },
    update(next, nextSkills) {
      const seen = new Set<string>();
      const cached = cachedWords(words);
      for (const entry of next) {
        seen.add(entry.fullName);
        const before = indexed.get(entry.fullName);
        if (before?.listing === entry.listing && before.instance === entry.instance) continue;
        add(entry, cached);
      }
      for (const name of [...indexed.keys()]) {
        if (seen.has(name)) continue;
        terms.remove(name);
        indexed.delete(name);
      }
      describe(nextSkills, cached);
      terms.flush();
    },
  };
}

// --- internal ---

/**
 * Splits text into the terms the index holds: words (camelCase, snake_case and dotted names split), lower case,
 * without the most common English words, stemmed (Porter), at most `cap` of them.
 *
 * @example
 * wordsOf(stem)("Deletes the file at path", 10) // ["delet", "file", "path"]
 */
function wordsOf(stem: (word: string) => string): (text: string, cap: number) => string[] {
  const stems = new Map<string, string>();
  return (text, cap) => {
    const out: string[] = [];
    WORD.lastIndex = 0;
    for (let match = WORD.exec(text); match !== null; match = WORD.exec(text)) {
      const word = match[0];
      let term = stems.get(word);
      if (term === undefined) {
        const lower = word.toLowerCase();
        term = lower.length < 2 || STOP_WORDS.has(lower) ? "" : stem(lower);
        // Queries bring words of their own: the cache starts again rather than grow without end.
        if (stems.size >= MAX_STEMS) stems.clear();
        stems.set(word, term);
      }
      if (term === "") continue;
      out.push(term);
      if (out.length >= cap) break;
    }
    return out;
  };
}

type Field = "name" | "title" | "hint" | "summary" | "description" | "params";

/** The terms of a tool's texts: of any text (at most `cap`), of a description, and of its name. */
interface Words {
  text(text: string, cap: number): string[];
  /** The terms of a description's opening sentence, and of its whole (code left out). */
  description(text: string): [summary: string[], description: string[]];
  /**
   * The full name as words (files.delete_file → files delete file), and the tool's own name when a rename changed it:
   * the server's part and the tool's own name split apart, as several servers may list a tool of the same name.
   */
  name(name: string, own: string): string[];
}

/**
 * `words` remembering what it answered, for one build or update: a composition repeats texts (the same server or
 * skill under two ids, descriptions shared by several tools), and each is split and stemmed once.
 */
function cachedWords(words: (text: string, cap: number) => string[]): Words {
  const byCap = new Map<number, Map<string, string[]>>();
  const descriptions = new Map<string, [string[], string[]]>();
  const text = (value: string, cap: number): string[] => {
    let seen = byCap.get(cap);
    if (seen === undefined) {
      seen = new Map();
      byCap.set(cap, seen);
    }
    let terms = seen.get(value);
    if (terms === undefined) {
      terms = words(value, cap);
      seen.set(value, terms);
    }
    return terms;
  };
  return {
    text,
    description(value) {
      let both = descriptions.get(value);
      if (both === undefined) {
        const plain = prose(value);
        both = [text(summaryOf(plain), FIELD_TERMS.summary), text(plain, FIELD_TERMS.description)];
        descriptions.set(value, both);
      }
      return both;
    },
    name(name, own) {
      if (!name.endsWith(own)) return text(`${name} ${own}`, FIELD_TERMS.name);
      const server = text(name.slice(0, name.length - own.length), FIELD_TERMS.name);
      const tool = text(own, FIELD_TERMS.name);
      return server.length === 0 ? tool : [...server, ...tool].slice(0, FIELD_TERMS.name);
    },
  };
}

const FIELDS: Field[] = ["name", "title", "hint", "summary", "description", "params"];

/**
 * How much a match in each field counts. A tool's name and the hint its operator wrote say what it is for; its title
 * next; the opening sentence of its description counts twice (in its own field and in the description), as it says
 * what the tool does where the rest says how to use it; its arguments tell tools apart least.
 */
const BOOST: Record<Field, number> = {
  name: 3,
  title: 2,
  hint: 3,
  summary: 1,
  description: 1,
  params: 0.5,
};

/**
 * The fields pooled over a server's (or skill instance's) tools to rank the servers themselves: what its tools are
 * named and what they do, in their opening sentences, with a skill's SKILL.md description. A task that names a
 * service, or a thing only one service's tools deal with (a cluster, a board, a channel), lifts that server's tools;
 * its verb picks among them.
 */
const OWNER_FIELDS: Field[] = ["name", "title", "summary"];
/** A tool's score is multiplied by 1 + this × its server's score over the best server's. */
const OWNER_WEIGHT = 3;

/**
 * BM25+ as MiniSearch computes it, with a field's length counting more than its default (b 0.9, not 0.7):
 * descriptions run from five words to hundreds, and a long one matches a task's words by chance.
 */
const BM25 = { k: 1.2, b: 0.9, d: 0.5 };

/**
 * The most terms a field holds. The opening of a long description says what the tool is for; what follows (usage
 * notes, warnings, examples) matches tasks by chance more often than it tells tools apart, and makes the index
 * larger and slower to build.
 */
const FIELD_TERMS: Record<Field, number> = {
  name: 16,
  title: 16,
  hint: 32,
  summary: 32,
  description: 32,
  params: 12,
};

/** The most terms of a skill's SKILL.md description that count. */
const SKILL_TERMS = 48;

/** Characters of text that hold about one term (a word of five letters, a space, a stop word now and then). */
const CHARS_PER_TERM = 10;

/** The most terms of a query that count: a whole paragraph pasted in is cut there. */
const QUERY_TERMS = 32;

/** Terms at least this long also match the terms they begin (a word typed in part). */
const MIN_PREFIX = 4;
/** Terms at least this long also match terms one edit away (a typo). */
const MIN_FUZZY = 5;
/** How much a synonym of a task's word counts, against the word itself. */
const SYNONYM = 0.5;

/** The most words whose terms are kept (a tool table's words are a few thousand). */
const MAX_STEMS = 50_000;

/** A word: a run of letters (a capital starting a camelCase part) or of digits. */
const WORD = /[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\p{L}+|\d+/gu;

/** Words too common in tasks and descriptions to tell tools apart. */
const STOP_WORDS = new Set(
  (
    "a about all also an and any are as at be been but by can could do does every everything for from has have how " +
    "i if in into is it its just let like me my need of on one or our please should so some something that the " +
    "their them then there these this those to us use using via want was we what when where which will with would " +
    "you your"
  ).split(" "),
);

/**
 * Argument names and descriptions, depth first, three levels deep at most, until about `budget` characters: the
 * field keeps its first terms only, and a large schema (hundreds of nested properties) need not be walked whole.
 */
function paramsText(schema: JsonSchema | undefined, budget: number): string {
  const out: string[] = [];
  let length = 0;
  const walk = (node: JsonSchema | undefined, depth: number): void => {
    if (node === undefined || typeof node !== "object" || depth > 2) return;
    const properties = (node as { properties?: Record<string, JsonSchema> }).properties;
    if (properties === undefined || typeof properties !== "object") return;
    for (const [name, property] of Object.entries(properties)) {
      if (length >= budget) return;
      // The host's own confirmation argument says nothing about what the tool does.
      if (name === "_confirm") continue;
      out.push(name);
      length += name.length + 1;
      if (property === null || typeof property !== "object") continue;
      const { description, items } = property as { description?: unknown; items?: JsonSchema };
      if (typeof description === "string") {
        out.push(description);
        length += description.length + 1;
      }
      walk(property, depth + 1);
      if (items !== undefined) walk(items, depth + 1);
    }
  };
  walk(schema, 0);
  return out.join(" ");
}

/** A tool's fields as terms, in the order of FIELDS. */
function fieldsOf(entry: ToolEntry, words: Words): string[][] {
  const { listing } = entry;
  const hint = listing._meta?.[SEARCH_HINT];
  const [summary, description] = words.description(listing.description);
  return [
    words.name(listing.name, entry.toolName),
    words.text(listing.title, FIELD_TERMS.title),
    hint === undefined ? [] : words.text(hint, FIELD_TERMS.hint),
    summary,
    description,
    words.text(paramsText(listing.inputSchema, FIELD_TERMS.params * CHARS_PER_TERM), FIELD_TERMS.params),
  ];
}

/** A description without its code: fenced blocks and inline code are examples, not what the tool is for. */
function prose(text: string): string {
  return text.replace(/```[\s\S]*?(?:```|$)/g, " ").replace(/`[^`\n]*`/g, " ");
}

/** The opening sentence of a description (without its code), which says what the tool does. */
function summaryOf(description: string): string {
  const plain = description.replace(/^[^\p{L}\p{N}]+/u, "");
  // A sentence ends after a word, not after a number: "1. Retrieves …" numbers a list.
  const end = plain.search(/(?<![\d\s])[.!?](?:\s|$)|\n\s*\n/);
  return end === -1 ? plain : plain.slice(0, end);
}

/** Each skill instance's SKILL.md description, by instance. */
function skillTexts(registry: Registry): Map<object, string> {
  const texts = new Map<object, string>();
  for (const doc of registry.skillDocs) {
    if (doc.description !== undefined) texts.set(doc.instance, `${doc.name} ${doc.description}`);
  }
  return texts;
}

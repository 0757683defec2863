import type { default as SearchableMapClass } from "minisearch/SearchableMap";
import type { Segment } from "./postings.js";
import { grown, segmentOf, topOf } from "./postings.js";

/** One term of a query: what it matches, how much it counts, and whether longer and misspelt terms match it too. */
export interface QueryTerm {
  readonly term: string;
  /** A factor on everything the term matches (a synonym counts less than the task's own word). */
  readonly boost: number;
  /** Also match the terms it begins (`issu` → `issues`), counting less the longer they are. */
  readonly prefix: boolean;
  /** Also match the terms one edit away (a typo), counting less. */
  readonly fuzzy: boolean;
  /**
   * The query's word this term stands for (a synonym, the word it was found for): a document matching several terms
   * of one word counts that word once towards how many of the query's words it matched. Default: the term itself.
   */
  readonly word?: string;
}

/** How matches count: per field, and BM25+'s parameters. */
export interface TermIndexOptions {
  /** A factor per field, in the order a document gives its fields. */
  readonly boosts: readonly number[];
  readonly bm25: { readonly k: number; readonly b: number; readonly d: number };
  /**
   * Documents of one owner (the `owner` they were added with) are also ranked together: for each owner, how many of
   * its documents hold a term in one of `fields`, ranked by BM25 among owners; a document's score is then multiplied
   * by 1 + `weight` × its owner's score over the best owner's. Words of a query that say whose documents it wants (a
   * service's name, or its domain: a cluster, a board, a channel) lift that owner's documents, and the rest of the
   * query picks among them. Default: owners do not count.
   */
  readonly owners?: { readonly fields: readonly number[]; readonly weight: number };
}

/**
 * An inverted index of documents given as terms per field, ranked by BM25+ per field (as MiniSearch ranks: each
 * field's own document frequency and average length, a field's score times its boost, summed, and the sum times how
 * many of the query's distinct words the document matched). The vocabulary is MiniSearch's radix tree, for prefix and
 * fuzzy matching; everything else is a few typed arrays: the postings are sorted into one array per batch of added
 * documents (a segment), and a search scores into arrays indexed by document, so neither building nor searching makes
 * an object per document or per match.
 */
export interface TermIndex {
  /**
   * Adds a document under `key` (a key already there is replaced). `fields[i]` are the terms of field i; `owner` groups
   * it with others (see {@link TermIndexOptions.owners}).
   */
  add(key: string, fields: readonly (readonly string[])[], owner?: unknown): void;
  /**
   * Gives `owner` a description of its own (a skill's SKILL.md), or takes it away (undefined): each of its terms counts
   * as one more of the owner's documents holding it, once per owner, however many documents the owner has.
   */
  describe(owner: unknown, terms: readonly string[] | undefined): void;
  /** Removes the document under `key`; false when there was none. */
  remove(key: string): boolean;
  /**
   * Makes the documents added since the last flush searchable (a search flushes first when they are not). After many
   * small batches or removals, rewrites the postings as one segment without the removed documents.
   */
  flush(): void;
  /**
   * The keys of the best `limit` documents for `query` that `accept` lets through, best first. `accept` is asked only
   * about documents good enough to make the first `limit`.
   */
  search(query: readonly QueryTerm[], limit: number, accept?: (key: string) => boolean): string[];
  readonly size: number;
}

/**
 * An empty index whose documents have `options.boosts.length` fields.
 *
 * @example
 * const index = createTermIndex(SearchableMap, { boosts: [2, 1], bm25: { k: 1.2, b: 0.7, d: 0.5 } });
 * index.add("files.delete_file", [["file", "delet"], ["delet", "file", "path"]]);
 * index.search([{ term: "delet", boost: 1, prefix: false, fuzzy: false }], 5); // ["files.delete_file"]
 */
export function createTermIndex(SearchableMap: typeof SearchableMapClass, options: TermIndexOptions): TermIndex {
  const fieldCount = options.boosts.length;
  const boosts = Float64Array.from(options.boosts);
  const { k, b, d } = options.bm25;
  const ownerWeight = options.owners?.weight ?? 0;
  // Per field, 1 when its terms count towards the owner's.
  const pooled = new Uint8Array(fieldCount);
  if (ownerWeight > 0) for (const field of options.owners?.fields ?? []) pooled[field] = 1;

  // Documents by slot; a removed document leaves its slot empty until the index is compacted.
  let keys: (string | undefined)[] = [];
  const slotOf = new Map<string, number>();
  let live = 0;
  // Each slot's [term id, field, frequency] triples, from starts[slot] to ends[slot] in `triples`; its terms per field
  // (slot * fieldCount + field); and the sum over live documents per field.
  let triples = new Int32Array(INITIAL * 16);
  let used = 0;
  let starts = new Int32Array(INITIAL);
  let ends = new Int32Array(INITIAL);
  let lengths = new Int32Array(INITIAL * fieldCount);
  const totals = new Float64Array(fieldCount);

  // The vocabulary: term → id, and the radix tree over it; per term id and field, how many live documents hold it.
  const ids = new Map<string, number>();
  const vocabulary = new SearchableMap<number>();
  let frequencies = new Int32Array(INITIAL * fieldCount);
  // While a document is added: per term id, the field it was last seen in (stamp) and where its triple is.
  let stamps = new Int32Array(INITIAL);
  let positions = new Int32Array(INITIAL);
  let stamp = 0;
  // What a query term matches ([term id, weight, …]), until the vocabulary changes.
  const expansions = new Map<string, number[]>();

  // Owners: each slot's, and how many live documents each has; during a search, each owner's score, and while one
  // term is scored, how many of its documents hold the term (counted from the term's postings, nothing kept per term).
  const ownerIds = new Map<unknown, number>();
  let ownerOf = new Int32Array(INITIAL);
  let ownerSizes: number[] = [];
  let ownerScores = new Float64Array(16);
  let ownerCounts = new Int32Array(16);
  const ownersHolding: number[] = [];
  // The owners' own descriptions: the term ids each holds.
  let descriptions = new Map<number, Set<number>>();
  // Per slot, the last term (scored) it was counted for towards its owner.
  let counted = new Int32Array(INITIAL);
  let termStamp = 0;

  // The postings, a segment per flush; the slots below `sealed` are in them.
  let segments: Segment[] = [];
  let sealed = 0;

  // Per slot, during one search: the score so far, how many distinct query words matched, the last word counted.
  let scores = new Float64Array(INITIAL);
  let matched = new Uint16Array(INITIAL);
  let marks = new Int32Array(INITIAL);
  let mark = 0;
  // The slots a search has scored, the first `reached` of `touched` (a typed array, kept from search to search).
  let touched = new Int32Array(INITIAL);
  let reached = 0;
  const idf = new Float64Array(fieldCount);
  const average = new Float64Array(fieldCount);

  const idOf = (term: string): number => {
    let id = ids.get(term);
    if (id === undefined) {
      id = ids.size;
      ids.set(term, id);
      vocabulary.set(term, id);
      if (id >= stamps.length) {
        stamps = grown(stamps, id + 1);
        positions = grown(positions, id + 1);
        frequencies = grown(frequencies, (id + 1) * fieldCount);
      }
      expansions.clear();
    }
    return id;
  };

  const ownerIdOf = (owner: unknown): number => {
    let id = ownerIds.get(owner);
    if (id === undefined) {
      id = ownerIds.size;
      ownerIds.set(owner, id);
      ownerSizes.push(0);
    }
    return id;
  };

  const describe = (owner: unknown, terms: readonly string[] | undefined): void => {
    const id = ownerIdOf(owner);
    if (terms === undefined || terms.length === 0) descriptions.delete(id);
    else descriptions.set(id, new Set(terms.map(idOf)));
  };

  const add = (key: string, fields: readonly (readonly string[])[], owner?: unknown): void => {
    remove(key);
    const slot = keys.length;
    keys.push(key);
    slotOf.set(key, slot);
    if (slot >= starts.length) {
      starts = grown(starts, slot + 1);
      ends = grown(ends, slot + 1);
      lengths = grown(lengths, (slot + 1) * fieldCount);
      ownerOf = grown(ownerOf, slot + 1);
    }
    const ownerId = ownerIdOf(owner);
    ownerOf[slot] = ownerId;
    ownerSizes[ownerId] = (ownerSizes[ownerId] as number) + 1;
    starts[slot] = used;
    for (let field = 0; field < fieldCount; field++) {
      const terms = fields[field] ?? [];
      lengths[slot * fieldCount + field] = terms.length;
      totals[field] = (totals[field] as number) + terms.length;
      if (stamp === MAX_STAMP) {
        stamp = 0;
        stamps.fill(0);
      }
      stamp++;
      for (const term of terms) {
        const id = idOf(term);
        if (stamps[id] === stamp) {
          // A term the field repeats: one more of its frequency.
          const at = (positions[id] as number) + 2;
          triples[at] = (triples[at] as number) + 1;
          continue;
        }
        stamps[id] = stamp;
        if (used + 3 > triples.length) triples = grown(triples, used + 3);
        positions[id] = used;
        triples[used] = id;
        triples[used + 1] = field;
        triples[used + 2] = 1;
        used += 3;
        const at = id * fieldCount + field;
        frequencies[at] = (frequencies[at] as number) + 1;
      }
    }
    ends[slot] = used;
    live++;
  };

  const remove = (key: string): boolean => {
    const slot = slotOf.get(key);
    if (slot === undefined) return false;
    slotOf.delete(key);
    keys[slot] = undefined;
    for (let i = starts[slot] as number; i < (ends[slot] as number); i += 3) {
      const at = (triples[i] as number) * fieldCount + (triples[i + 1] as number);
      frequencies[at] = (frequencies[at] as number) - 1;
    }
    for (let field = 0; field < fieldCount; field++) {
      totals[field] = (totals[field] as number) - (lengths[slot * fieldCount + field] as number);
    }
    const ownerId = ownerOf[slot] as number;
    ownerSizes[ownerId] = (ownerSizes[ownerId] as number) - 1;
    live--;
    return true;
  };

  const seal = (from: number, to: number): Segment => segmentOf({ keys, starts, ends, triples }, ids.size, from, to);

  /** Renumbers the live documents' slots from 0, without the removed ones, and makes one segment of them all. */
  const compact = (): void => {
    const nextKeys: string[] = [];
    const nextTriples = new Int32Array(Math.max(used, INITIAL));
    const nextStarts = new Int32Array(Math.max(live, INITIAL));
    const nextEnds = new Int32Array(nextStarts.length);
    const nextLengths = new Int32Array(nextStarts.length * fieldCount);
    const nextOwners = new Int32Array(nextStarts.length);
    // Owners without a live document are dropped (a reloaded skill's instance is a new owner).
    const ownerNumbers = new Int32Array(ownerSizes.length).fill(-1);
    const nextOwnerSizes: number[] = [];
    const nextDescriptions = new Map<number, Set<number>>();
    for (const [owner, id] of [...ownerIds]) {
      if ((ownerSizes[id] as number) === 0) {
        ownerIds.delete(owner);
        continue;
      }
      ownerNumbers[id] = nextOwnerSizes.length;
      ownerIds.set(owner, nextOwnerSizes.length);
      const described = descriptions.get(id);
      if (described !== undefined) nextDescriptions.set(nextOwnerSizes.length, described);
      nextOwnerSizes.push(ownerSizes[id] as number);
    }
    let at = 0;
    for (let slot = 0; slot < keys.length; slot++) {
      const key = keys[slot];
      if (key === undefined) continue;
      const next = nextKeys.length;
      nextKeys.push(key);
      slotOf.set(key, next);
      nextStarts[next] = at;
      nextTriples.set(triples.subarray(starts[slot], ends[slot]), at);
      at += (ends[slot] as number) - (starts[slot] as number);
      nextEnds[next] = at;
      nextLengths.set(lengths.subarray(slot * fieldCount, (slot + 1) * fieldCount), next * fieldCount);
      nextOwners[next] = ownerNumbers[ownerOf[slot] as number] as number;
    }
    keys = nextKeys;
    triples = nextTriples;
    used = at;
    starts = nextStarts;
    ends = nextEnds;
    lengths = nextLengths;
    ownerOf = nextOwners;
    ownerSizes = nextOwnerSizes;
    descriptions = nextDescriptions;
    segments = [seal(0, keys.length)];
    sealed = keys.length;
  };

  const flush = (): void => {
    if (sealed < keys.length) {
      segments.push(seal(sealed, keys.length));
      sealed = keys.length;
    }
    const crowded = segments.length > MAX_SEGMENTS || emptyOwners() > Math.max(ownerSizes.length / 2, MAX_SEGMENTS);
    if (crowded || keys.length - live > Math.max(live, INITIAL)) compact();
  };

  /** The term ids a query term matches, each with its weight: itself 1, longer and misspelt terms less. */
  const expand = (query: QueryTerm): number[] => {
    const cacheKey = `${query.prefix ? 1 : 0}${query.fuzzy ? 1 : 0}${query.term}`;
    const cached = expansions.get(cacheKey);
    if (cached !== undefined) return cached;
    const { term } = query;
    const out: number[] = [];
    const exact = ids.get(term);
    if (exact !== undefined) out.push(exact, 1);
    const prefixed = new Set<string>();
    if (query.prefix) {
      for (const [other, id] of vocabulary.atPrefix(term)) {
        const distance = other.length - term.length;
        if (distance === 0) continue;
        prefixed.add(other);
        out.push(id, (PREFIX_WEIGHT * other.length) / (other.length + 0.3 * distance));
      }
    }
    if (query.fuzzy) {
      for (const [other, [id, distance]] of vocabulary.fuzzyGet(term, 1)) {
        if (distance === 0 || prefixed.has(other)) continue;
        out.push(id, (FUZZY_WEIGHT * other.length) / (other.length + distance));
      }
    }
    // Queries bring terms of their own: the cache starts again rather than grow without end.
    if (expansions.size >= MAX_EXPANSIONS) expansions.clear();
    expansions.set(cacheKey, out);
    return out;
  };

  /**
   * Adds what the term id `id`, weighted `weight`, scores in every live document holding it, and to every owner whose
   * documents hold it in a pooled field.
   */
  const score = (id: number, weight: number, wordMark: number): void => {
    for (let field = 0; field < fieldCount; field++) {
      const holding = frequencies[id * fieldCount + field] as number;
      idf[field] = Math.log(1 + (live - holding + 0.5) / (holding + 0.5));
    }
    if (termStamp === MAX_STAMP) {
      termStamp = 0;
      counted.fill(0);
    }
    termStamp++;
    for (const { terms, offsets, postings } of segments) {
      if (id >= terms) continue;
      const end = (offsets[id + 1] as number) * 3;
      for (let p = (offsets[id] as number) * 3; p < end; p += 3) {
        const slot = postings[p] as number;
        if (keys[slot] === undefined) continue;
        const field = postings[p + 1] as number;
        const frequency = postings[p + 2] as number;
        const length = lengths[slot * fieldCount + field] as number;
        const norm = 1 - b + (b * length) / (average[field] as number);
        const gained =
          weight *
          (boosts[field] as number) *
          (idf[field] as number) *
          (d + (frequency * (k + 1)) / (frequency + k * norm));
        if (matched[slot] === 0) touched[reached++] = slot;
        scores[slot] = (scores[slot] as number) + gained;
        if (marks[slot] !== wordMark) {
          marks[slot] = wordMark;
          matched[slot] = (matched[slot] as number) + 1;
        }
        if (pooled[field] === 1 && counted[slot] !== termStamp) {
          counted[slot] = termStamp;
          const owner = ownerOf[slot] as number;
          if (ownerCounts[owner] === 0) ownersHolding.push(owner);
          ownerCounts[owner] = (ownerCounts[owner] as number) + 1;
        }
      }
    }
    for (const [owner, described] of descriptions) {
      if (!described.has(id) || ownerSizes[owner] === 0) continue;
      if (ownerCounts[owner] === 0) ownersHolding.push(owner);
      ownerCounts[owner] = (ownerCounts[owner] as number) + 1;
    }
    if (ownersHolding.length === 0) return;
    // The owners ranked by BM25 over how many of their documents hold the term, against how many documents they have.
    const owners = ownerSizes.length - emptyOwners();
    const ownerIdf = Math.log(1 + (owners - ownersHolding.length + 0.5) / (ownersHolding.length + 0.5));
    const averageSize = live / owners;
    for (const owner of ownersHolding) {
      const count = ownerCounts[owner] as number;
      const norm = 1 - OWNER_B + (OWNER_B * (ownerSizes[owner] as number)) / averageSize;
      ownerScores[owner] =
        (ownerScores[owner] as number) + weight * ownerIdf * ((count * (k + 1)) / (count + k * norm));
      ownerCounts[owner] = 0;
    }
    ownersHolding.length = 0;
  };

  const emptyOwners = (): number => {
    let empty = 0;
    for (const size of ownerSizes) if (size === 0) empty++;
    return empty;
  };

  return {
    get size() {
      return live;
    },
    add,
    describe,
    remove,
    flush,
    search(query, limit, accept) {
      flush();
      if (live === 0 || limit < 1) return [];
      if (ownerScores.length < ownerSizes.length) {
        ownerScores = new Float64Array(ownerSizes.length * 2);
        ownerCounts = new Int32Array(ownerScores.length);
      }
      if (scores.length < keys.length) {
        scores = new Float64Array(Math.max(keys.length, scores.length * 2));
        matched = new Uint16Array(scores.length);
        marks = new Int32Array(scores.length);
        counted = new Int32Array(scores.length);
        touched = new Int32Array(scores.length);
      }
      for (let field = 0; field < fieldCount; field++) average[field] = (totals[field] as number) / live || 1;
      // A word the query repeats, or says with several terms, counts once towards how many of its words matched.
      const markOf = new Map<string, number>();
      for (const one of query) {
        const word = one.word ?? one.term;
        let wordMark = markOf.get(word);
        if (wordMark === undefined) {
          mark = mark === MAX_STAMP ? 1 : mark + 1;
          wordMark = mark;
          markOf.set(word, wordMark);
        }
        const matches = expand(one);
        for (let m = 0; m < matches.length; m += 2) {
          score(matches[m] as number, (matches[m + 1] as number) * one.boost, wordMark);
        }
      }
      if (ownerWeight > 0) {
        let most = 0;
        for (let owner = 0; owner < ownerSizes.length; owner++) most = Math.max(most, ownerScores[owner] as number);
        if (most > 0) {
          for (let i = 0; i < reached; i++) {
            const slot = touched[i] as number;
            const owner = ownerOf[slot] as number;
            scores[slot] = (scores[slot] as number) * (1 + (ownerWeight * (ownerScores[owner] as number)) / most);
          }
        }
        ownerScores.fill(0);
      }
      const best = topOf(touched.subarray(0, reached), scores, matched, keys, limit, accept);
      for (let i = 0; i < reached; i++) {
        const slot = touched[i] as number;
        scores[slot] = 0;
        matched[slot] = 0;
        marks[slot] = 0;
      }
      reached = 0;
      return best;
    },
  };
}

// --- internal ---

/** How much an owner's size counts against how many of its documents hold a term (BM25's b among owners). */
const OWNER_B = 0.75;

/** How much a term that a query term begins counts, and one a typo away (MiniSearch's weights). */
const PREFIX_WEIGHT = 0.375;
const FUZZY_WEIGHT = 0.45;

/** The most query terms whose matches are kept. */
const MAX_EXPANSIONS = 4096;

/** The last stamp an Int32Array holds: then its stamps start again from 1, the array cleared. */
const MAX_STAMP = 0x7fffffff;

/** Slots and term ids the arrays start with room for; they double when full. */
const INITIAL = 1024;

/** The most segments before they are rewritten as one (each search reads every one). */
const MAX_SEGMENTS = 8;

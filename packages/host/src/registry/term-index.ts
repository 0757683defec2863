import type { default as SearchableMapClass } from "minisearch/SearchableMap";

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
}

/**
 * An inverted index of documents given as terms per field, ranked by BM25+ per field (as MiniSearch ranks: each
 * field's own document frequency and average length, a field's score times its boost, summed, and the sum times how
 * many of the query's distinct terms the document matched). The vocabulary is MiniSearch's radix tree, for prefix and
 * fuzzy matching; the postings are flat arrays and a search scores into typed arrays, so a search allocates little
 * however many documents a common word matches.
 */
export interface TermIndex {
  /** Adds a document under `key` (a key already there is replaced). `fields[i]` are the terms of field i. */
  add(key: string, fields: readonly (readonly string[])[]): void;
  /** Removes the document under `key`; false when there was none. */
  remove(key: string): boolean;
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

  // Documents by slot; a removed document leaves its slot empty until the index is compacted.
  let keys: (string | undefined)[] = [];
  const slotOf = new Map<string, number>();
  // Terms per field of each slot (slot * fieldCount + field), and the sum over live documents per field.
  let lengths: number[] = [];
  const totals = new Float64Array(fieldCount);
  // Each slot's [term id, field] pairs, to take it out of the document frequencies when it is removed.
  let slotTerms: (Int32Array | undefined)[] = [];
  let live = 0;

  // The vocabulary: term → id, and the radix tree over it for prefix and fuzzy matching.
  const ids = new Map<string, number>();
  const vocabulary = new SearchableMap<number>();
  // Per term id: [slot, field, term frequency, …]; and per term id and field, how many live documents hold it.
  const postings: number[][] = [];
  const frequencies: number[] = [];
  // What a query term matches ([term id, weight, …]), until the vocabulary changes.
  const expansions = new Map<string, number[]>();

  // Per slot, during one search: the score so far, how many distinct query terms matched, the last term counted.
  let scores = new Float64Array(1024);
  let matched = new Uint16Array(1024);
  let marks = new Int32Array(1024);
  let mark = 0;
  const touched: number[] = [];
  // Per term id, the field it was last seen in while a document is added (a term counted once per field).
  const stamps: number[] = [];
  let stamp = 0;

  const idOf = (term: string): number => {
    let id = ids.get(term);
    if (id === undefined) {
      id = postings.length;
      ids.set(term, id);
      vocabulary.set(term, id);
      postings.push([]);
      stamps.push(0);
      for (let field = 0; field < fieldCount; field++) frequencies.push(0);
      expansions.clear();
    }
    return id;
  };

  const remove = (key: string): boolean => {
    const slot = slotOf.get(key);
    if (slot === undefined) return false;
    slotOf.delete(key);
    keys[slot] = undefined;
    const pairs = slotTerms[slot] as Int32Array;
    for (let i = 0; i < pairs.length; i += 2) {
      const at = (pairs[i] as number) * fieldCount + (pairs[i + 1] as number);
      frequencies[at] = (frequencies[at] as number) - 1;
    }
    slotTerms[slot] = undefined;
    for (let field = 0; field < fieldCount; field++) {
      totals[field] = (totals[field] as number) - (lengths[slot * fieldCount + field] as number);
    }
    live--;
    // Postings keep the empty slot until most slots are empty: then they are rewritten without them.
    if (keys.length - live > Math.max(live, 1024)) compact();
    return true;
  };

  /** Renumbers the live documents' slots from 0 and drops the empty slots from every posting list. */
  const compact = (): void => {
    const next = new Int32Array(keys.length).fill(-1);
    const nextKeys: (string | undefined)[] = [];
    const nextLengths: number[] = [];
    const nextTerms: (Int32Array | undefined)[] = [];
    for (let slot = 0; slot < keys.length; slot++) {
      const key = keys[slot];
      if (key === undefined) continue;
      next[slot] = nextKeys.length;
      slotOf.set(key, nextKeys.length);
      nextKeys.push(key);
      nextTerms.push(slotTerms[slot]);
      for (let field = 0; field < fieldCount; field++) nextLengths.push(lengths[slot * fieldCount + field] as number);
    }
    for (const list of postings) {
      let to = 0;
      for (let from = 0; from < list.length; from += 3) {
        const slot = next[list[from] as number] as number;
        if (slot === -1) continue;
        list[to] = slot;
        list[to + 1] = list[from + 1] as number;
        list[to + 2] = list[from + 2] as number;
        to += 3;
      }
      list.length = to;
    }
    keys = nextKeys;
    lengths = nextLengths;
    slotTerms = nextTerms;
  };

  const add = (key: string, fields: readonly (readonly string[])[]): void => {
    remove(key);
    const slot = keys.length;
    keys.push(key);
    slotOf.set(key, slot);
    const pairs: number[] = [];
    for (let field = 0; field < fieldCount; field++) {
      const terms = fields[field] ?? [];
      lengths.push(terms.length);
      totals[field] = (totals[field] as number) + terms.length;
      stamp++;
      for (const term of terms) {
        const id = idOf(term);
        const list = postings[id] as number[];
        if (stamps[id] === stamp) {
          // A term the field repeats: one more of its frequency, at the end of its postings.
          list[list.length - 1] = (list[list.length - 1] as number) + 1;
          continue;
        }
        stamps[id] = stamp;
        list.push(slot, field, 1);
        frequencies[id * fieldCount + field] = (frequencies[id * fieldCount + field] as number) + 1;
        pairs.push(id, field);
      }
    }
    slotTerms.push(Int32Array.from(pairs));
    live++;
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

  const ensureCapacity = (): void => {
    if (scores.length >= keys.length) return;
    const size = Math.max(keys.length, scores.length * 2);
    scores = new Float64Array(size);
    matched = new Uint16Array(size);
    marks = new Int32Array(size);
  };

  const idf = new Float64Array(fieldCount);
  const average = new Float64Array(fieldCount);

  return {
    get size() {
      return live;
    },
    add,
    remove,
    search(query, limit, accept) {
      if (live === 0 || limit < 1) return [];
      ensureCapacity();
      for (let field = 0; field < fieldCount; field++) average[field] = (totals[field] as number) / live || 1;
      // A word the query repeats, or says with several terms, counts once towards how many of its words matched.
      const markOf = new Map<string, number>();
      for (const one of query) {
        const word = one.word ?? one.term;
        let termMark = markOf.get(word);
        if (termMark === undefined) {
          mark = mark >= 0x7fffffff ? 1 : mark + 1;
          termMark = mark;
          markOf.set(word, termMark);
        }
        const matches = expand(one);
        for (let m = 0; m < matches.length; m += 2) {
          const id = matches[m] as number;
          const weight = (matches[m + 1] as number) * one.boost;
          for (let field = 0; field < fieldCount; field++) {
            const holding = frequencies[id * fieldCount + field] as number;
            idf[field] = Math.log(1 + (live - holding + 0.5) / (holding + 0.5));
          }
          const list = postings[id] as number[];
          for (let p = 0; p < list.length; p += 3) {
            const slot = list[p] as number;
            if (keys[slot] === undefined) continue;
            const field = list[p + 1] as number;
            const frequency = list[p + 2] as number;
            const length = lengths[slot * fieldCount + field] as number;
            const score =
              weight *
              (boosts[field] as number) *
              (idf[field] as number) *
              (d + (frequency * (k + 1)) / (frequency + k * (1 - b + (b * length) / (average[field] as number))));
            if (matched[slot] === 0) touched.push(slot);
            scores[slot] = (scores[slot] as number) + score;
            if (marks[slot] !== termMark) {
              marks[slot] = termMark;
              matched[slot] = (matched[slot] as number) + 1;
            }
          }
        }
      }
      const best = topOf(touched, scores, matched, keys, limit, accept);
      for (const slot of touched) {
        scores[slot] = 0;
        matched[slot] = 0;
        marks[slot] = 0;
      }
      touched.length = 0;
      return best;
    },
  };
}

// --- internal ---

/** How much a term that a query term begins counts, and one a typo away (MiniSearch's weights). */
const PREFIX_WEIGHT = 0.375;
const FUZZY_WEIGHT = 0.45;

/** The most query terms whose matches are kept. */
const MAX_EXPANSIONS = 4096;

/**
 * The keys of the `limit` best slots (score times distinct terms matched; the earlier slot first on a tie) that
 * `accept` lets through, best first: a sorted list of at most `limit`, so `accept` is asked only of slots that
 * would enter it.
 */
function topOf(
  slots: readonly number[],
  scores: Float64Array,
  matched: Uint16Array,
  keys: readonly (string | undefined)[],
  limit: number,
  accept: ((key: string) => boolean) | undefined,
): string[] {
  const bestSlots: number[] = [];
  const bestScores: number[] = [];
  for (const slot of slots) {
    const score = (scores[slot] as number) * (matched[slot] as number);
    const full = bestSlots.length >= limit;
    if (full && !before(score, slot, bestScores[limit - 1] as number, bestSlots[limit - 1] as number)) continue;
    if (accept !== undefined && !accept(keys[slot] as string)) continue;
    let at = bestSlots.length;
    while (at > 0 && before(score, slot, bestScores[at - 1] as number, bestSlots[at - 1] as number)) at--;
    bestSlots.splice(at, 0, slot);
    bestScores.splice(at, 0, score);
    if (bestSlots.length > limit) {
      bestSlots.pop();
      bestScores.pop();
    }
  }
  return bestSlots.map((slot) => keys[slot] as string);
}

/** Whether a slot with `score` ranks before another with `otherScore`. */
function before(score: number, slot: number, otherScore: number, otherSlot: number): boolean {
  return score > otherScore || (score === otherScore && slot < otherSlot);
}

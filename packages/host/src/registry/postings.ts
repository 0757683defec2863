/**
 * The arrays under the search index (term-index.ts): segments of postings sorted by term, arrays that grow by
 * doubling, and the pick of the best documents.
 */

/**
 * The postings of a run of documents: term id t's [slot, field, frequency] triples are from offsets[t] to
 * offsets[t + 1] (in triples), in slot order.
 */
export interface Segment {
  /** How many term ids there were when it was made: a later term has no postings here. */
  readonly terms: number;
  readonly offsets: Int32Array;
  readonly postings: Int32Array;
}

/** Documents by slot, as the index holds them: each slot's [term id, field, frequency] triples in `triples`. */
export interface SlotTriples {
  /** A removed document's slot is undefined. */
  readonly keys: readonly (string | undefined)[];
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  readonly triples: Int32Array;
}

/**
 * The segment of the live slots from `from` to `to` over term ids below `terms`: their triples sorted by term id with
 * a counting sort (one pass counts each term's postings, one places them), so it is two typed arrays, whatever the
 * number of terms.
 *
 * @example
 * segmentOf(documents, ids.size, 0, documents.keys.length); // every document, as one segment
 */
export function segmentOf(documents: SlotTriples, terms: number, from: number, to: number): Segment {
  const { keys, starts, ends, triples } = documents;
  const offsets = new Int32Array(terms + 1);
  for (let slot = from; slot < to; slot++) {
    if (keys[slot] === undefined) continue;
    for (let i = starts[slot] as number; i < (ends[slot] as number); i += 3) {
      const at = (triples[i] as number) + 1;
      offsets[at] = (offsets[at] as number) + 1;
    }
  }
  for (let id = 1; id <= terms; id++) offsets[id] = (offsets[id] as number) + (offsets[id - 1] as number);
  const postings = new Int32Array((offsets[terms] as number) * 3);
  const cursor = offsets.slice(0, terms);
  for (let slot = from; slot < to; slot++) {
    if (keys[slot] === undefined) continue;
    for (let i = starts[slot] as number; i < (ends[slot] as number); i += 3) {
      const id = triples[i] as number;
      const at = (cursor[id] as number) * 3;
      cursor[id] = (cursor[id] as number) + 1;
      postings[at] = slot;
      postings[at + 1] = triples[i + 1] as number;
      postings[at + 2] = triples[i + 2] as number;
    }
  }
  return { terms, offsets, postings };
}

/**
 * `array`, or a copy at least twice as long when it holds fewer than `size`.
 *
 * @example
 * stamps = grown(stamps, id + 1);
 */
export function grown(array: Int32Array<ArrayBuffer>, size: number): Int32Array<ArrayBuffer> {
  if (array.length >= size) return array;
  const next = new Int32Array(Math.max(size, array.length * 2));
  next.set(array);
  return next;
}

/**
 * The keys of the `limit` best slots (score times distinct words matched; the earlier slot first on a tie) that
 * `accept` lets through, best first: a sorted list of at most `limit`, so `accept` is asked only of slots that would
 * enter it.
 *
 * @example
 * topOf(touched, scores, matched, keys, 5, (key) => mayCall(key));
 */
export function topOf(
  slots: Int32Array,
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

// --- internal ---

/** Whether a slot with `score` ranks before another with `otherScore`. */
function before(score: number, slot: number, otherScore: number, otherSlot: number): boolean {
  return score > otherScore || (score === otherScore && slot < otherSlot);
}

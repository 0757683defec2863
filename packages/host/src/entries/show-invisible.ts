/**
 * Characters that make a person read something other than what runs: controls (newlines, escapes), bidirectional
 * overrides and isolates (U+202A–U+202E, U+2066–U+2069), marks and zero-width characters, line and paragraph
 * separators, and the invisible tag characters.
 */
const INVISIBLE = /[\p{Cc}\u00AD\u061C\u180E\u200B-\u200F\u2028-\u202E\u2060-\u206F\uFEFF\u{E0000}-\u{E007F}]/gu;

/** A brief as the user must see it: every invisible or reordering character written as a visible `\u{…}` escape. */
export function showInvisible(text: string): string {
  return text.replace(
    INVISIBLE,
    (c) => `\\u{${(c.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, "0")}}`,
  );
}

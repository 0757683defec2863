/**
 * A stand-in for the client's linear pattern engine, with its contract: it throws for a pattern it cannot run
 * (here, a lookahead), and a RangeError for a text longer than `maxLength`; no toString of its own.
 */
export function standInPatternEngine(maxLength = 20): (pattern: string) => { test(text: string): boolean } {
  return (pattern) => {
    if (pattern.includes("(?=")) throw new Error(`the pattern ${JSON.stringify(pattern)} cannot be run: lookahead`);
    const native = new RegExp(pattern, "u");
    return {
      test(text) {
        if (text.length > maxLength) throw new RangeError(`a string of ${text.length} characters is too long`);
        return native.test(text);
      },
    };
  };
}

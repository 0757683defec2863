// Property: a confirmation token (an operation id, a question's state, a round's state) is honoured only as this
// server minted it, for the call it was minted for, once. Every generated change to a token (a character replaced,
// removed, added or its case flipped, a part cut off or repeated, its parts swapped) is refused as invalid and uses
// nothing up: the token as minted still holds afterwards, once. Presented for another kind, tool, argument or caller,
// it never holds.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../src/json/canonical-json.js";
import type { ConfirmationSubject } from "../src/pipeline/confirmations.js";
import { createConfirmations, INPUT_STATE_PREFIX } from "../src/pipeline/confirmations.js";

const confirmations = createConfirmations();
const ROUND = {
  answers: { "elicit-1": { name: "Eve" } },
  asked: { "elicit-2": "elicitation/create" },
  confirmed: true,
};

/** The three kinds of token: how one is minted for a call, and how it is checked. */
const KINDS = {
  op: {
    mint: async (subject: ConfirmationSubject) => (await confirmations.issue(subject)).operationId,
    check: (token: string, subject: ConfirmationSubject) => confirmations.redeem(token, subject),
  },
  ask: {
    mint: async (subject: ConfirmationSubject) => (await confirmations.ask(subject)).state,
    check: (token: string, subject: ConfirmationSubject) => confirmations.answer(token, subject),
  },
  in: {
    mint: (subject: ConfirmationSubject) => confirmations.carry(subject, ROUND),
    check: async (token: string, subject: ConfirmationSubject) => (await confirmations.resume(token, subject)).verdict,
  },
} as const;
type Kind = keyof typeof KINDS;

const TOKEN_CHARACTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ ";
/** A change to a token, applied at a position picked from `at` (taken modulo its length). */
const changeArb = fc.oneof(
  fc.record({ kind: fc.constant("replace" as const), at: fc.nat(), to: fc.constantFrom(...TOKEN_CHARACTERS) }),
  fc.record({
    kind: fc.constant("replace" as const),
    at: fc.nat(),
    to: fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
  }),
  fc.record({ kind: fc.constant("remove" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("insert" as const), at: fc.nat(), to: fc.constantFrom(...TOKEN_CHARACTERS) }),
  fc.record({ kind: fc.constant("flip-case" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("cut" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("repeat-part" as const), at: fc.nat() }),
  fc.constant({ kind: "swap-parts" as const }),
);
type Change = typeof changeArb extends fc.Arbitrary<infer T> ? T : never;

function changed(token: string, change: Change): string {
  if (change.kind === "swap-parts") {
    const parts = token.split(".");
    return [...parts.slice(0, -2), parts.at(-1), parts.at(-2)].join(".");
  }
  const at = change.at % token.length;
  switch (change.kind) {
    case "replace":
      return token.slice(0, at) + change.to + token.slice(at + 1);
    case "remove":
      return token.slice(0, at) + token.slice(at + 1);
    case "insert":
      return token.slice(0, at) + change.to + token.slice(at);
    case "flip-case": {
      const c = token.charAt(at);
      return token.slice(0, at) + (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) + token.slice(at + 1);
    }
    case "cut":
      return token.slice(0, at);
    case "repeat-part": {
      const parts = token.split(".");
      const i = at % parts.length;
      return [...parts.slice(0, i + 1), parts[i], ...parts.slice(i + 1)].join(".");
    }
  }
}

const subjectArb = fc.record({
  tool: fc.constantFrom("files.delete_file", "shell.run_command"),
  args: fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
  caller: fc.option(fc.constantFrom("token:ci", "jwt:alice"), { nil: undefined }),
});

describe("confirmation tokens under attack", () => {
  it("refuse every changed token without using it up; the token as minted holds once", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<Kind>("op", "ask", "in"),
        subjectArb,
        fc.array(changeArb, { minLength: 1, maxLength: 3 }),
        async (kind, subject, changes) => {
          const { mint, check } = KINDS[kind];
          const token = await mint(subject);
          let forged = token;
          for (const change of changes) forged = changed(forged, change);
          if (forged === token) return;
          // A round's state is told apart by its prefix first: one changed there is not a round's state at all.
          const verdict =
            kind === "in" && !forged.startsWith(INPUT_STATE_PREFIX) ? "invalid" : await check(forged, subject);
          expect(verdict, `${token} → ${JSON.stringify(forged)}`).toBe("invalid");
          expect(await check(token, subject)).toBe("ok");
          expect(await check(token, subject)).toBe("reused");
        },
      ),
      { numRuns: 400 },
    );
  });

  it("never hold for another kind, tool, argument or caller", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<Kind>("op", "ask", "in"),
        fc.constantFrom<Kind>("op", "ask", "in"),
        subjectArb,
        fc.option(subjectArb, { nil: undefined }),
        async (mintedAs, checkedAs, subject, another) => {
          const other = another ?? subject; // now and then the very same call, checked as another kind
          const token = await KINDS[mintedAs].mint(subject);
          // The same call is the same tool, caller and arguments, whatever their keys' order (canonical JSON).
          const sameCall = canonicalJson(subject) === canonicalJson(other);
          if (mintedAs === checkedAs && sameCall) return;
          expect(await KINDS[checkedAs].check(token, other)).not.toBe("ok");
          // Refused elsewhere, it was not used up: it still holds for its own call, once.
          expect(await KINDS[mintedAs].check(token, subject)).toBe("ok");
        },
      ),
      { numRuns: 300 },
    );
  });
});

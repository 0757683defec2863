import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createRedactor, REDACTED } from "../src/redaction/redactor.js";

// A token shaped like GitHub's, and a password full of characters every encoding escapes.
const TOKEN = "ghp_R8x2Lq7VwZ4nT1kPc9Ys3Hd6Gf0Jm5Ba2Ue";
const PASSWORD = "pä ss&wörd<%41>/+=\"x9'Qz~*";

function redactorOf(...secrets: string[]) {
  const redactor = createRedactor();
  redactor.add(secrets);
  return redactor;
}

const b64 = (text: string) => Buffer.from(text).toString("base64");
const b64url = (text: string) => Buffer.from(text).toString("base64url");
const hex = (text: string) => Buffer.from(text).toString("hex");
const htmlNamed = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);
const htmlDecimal = (text: string) => [...text].map((c) => `&#${c.codePointAt(0)};`).join("");
const htmlHex = (text: string) => [...text].map((c) => `&#x${(c.codePointAt(0) ?? 0).toString(16)};`).join("");
const formPlus = (text: string) => new URLSearchParams({ q: text }).toString().slice(2);

/** Every form a secret can leave in, each inside surrounding text, and the form find() must report. */
function formsOf(secret: string): [string, string, string][] {
  return [
    ["plain", `before ${secret} after`, "plain"],
    ...[0, 1, 2].map((k): [string, string, string] => [
      `base64 at offset ${k} mod 3`,
      `data: ${b64(`${"x".repeat(k)}lead-in ${secret} trailing text`)}`,
      "base64",
    ]),
    ...[0, 1, 2].map((k): [string, string, string] => [
      `base64url at offset ${k} mod 3`,
      `?state=${b64url(`${"y".repeat(k)}>>?${secret}??>`)}&next=1`,
      "base64url",
    ]),
    ["base64 of the secret alone", b64(secret), "base64"],
    ["base64 wrapped at 76 columns (MIME)", wrap(b64(`${"z".repeat(100)}${secret}${"z".repeat(50)}`), 76), "base64"],
    ["hex, lower case", `0x${hex(`~${secret}~`)}`, "hex"],
    ["hex, upper case", hex(`~~${secret}`).toUpperCase(), "hex"],
    ["encodeURIComponent", `https://example.com/?t=${encodeURIComponent(secret)}&x=1`, "url"],
    ["URLSearchParams (+ for space)", `q=${formPlus(secret)}`, "url"],
    ["every byte percent-encoded", [...Buffer.from(secret)].map((b) => `%${b.toString(16)}`).join(""), "url"],
    ["HTML named entities", `<p>${htmlNamed(secret)}</p>`, "html"],
    ["HTML decimal entities", `<p>${htmlDecimal(secret)}</p>`, "html"],
    ["HTML hex entities", `<p>${htmlHex(secret)}</p>`, "html"],
  ];
}

function wrap(text: string, width: number) {
  return text.replace(new RegExp(`(.{${width}})`, "g"), "$1\r\n");
}

describe.each([
  ["a token", TOKEN],
  ["a password with spaces, symbols and non-ASCII letters", PASSWORD],
])("the redactor, for %s", (_name, secret) => {
  const redactor = redactorOf(secret);
  it.each(formsOf(secret))("redacts and finds the secret in %s", (_form, text, form) => {
    const out = redactor.string(text);
    expect(out).toContain(REDACTED);
    expect(leaks(out, secret)).toEqual([]);
    expect(redactor.find(out)).toBeUndefined(); // nothing left in any form
    // An escaping that changed nothing (a token has nothing to escape) leaves the secret plain.
    expect(redactor.find(text)).toEqual({ form: text.includes(secret) ? "plain" : form });
    expect(redactor.find(Buffer.from(text))).toBeDefined();
  });

  it("redacts a secret split across a line, with CRLF and indentation", () => {
    for (const at of [1, 5, 11, secret.length - 3]) {
      for (const sep of ["\n", "\r\n", "\n      ", "\r\n\t\t"]) {
        const text = `key = "${secret.slice(0, at)}${sep}${secret.slice(at)}" # end`;
        expect(leaks(redactor.string(text), secret), JSON.stringify(text)).toEqual([]);
      }
    }
  });

  it("redacts a secret split by an escaped newline in JSON text", () => {
    const text = JSON.stringify({ body: `${secret.slice(0, 9)}\n  ${secret.slice(9)}` });
    expect(leaks(redactor.string(text), secret)).toEqual([]);
    expect(redactor.find(text)).toBeDefined();
  });

  it("redacts a secret cut at the end of a text, with or without an ellipsis", () => {
    for (const keep of [8, 10, 15, secret.length - 1]) {
      for (const tail of ["", "…", "...", '"']) {
        const text = `the upstream answered: ${secret.slice(0, keep)}${tail}`;
        const out = redactor.string(text);
        expect(out, text).toBe(`the upstream answered: ${REDACTED}${tail}`);
        // The line breaks a text ends with (a log line's, a file's) are not part of it: the text ends where they begin.
        expect(redactor.string(`${text}\n`), text).toBe(`the upstream answered: ${REDACTED}${tail}\n`);
        expect(redactor.string(`${text}%\n\n`), text).toBe(`the upstream answered: ${REDACTED}\n\n`);
        expect(redactor.find(`${text}%\n\n`), text).toEqual({ form: "plain" });
      }
    }
  });

  it("redacts a secret that itself holds what reads as an escape, whole or cut (found by the property test)", () => {
    const escaped = createRedactor();
    const odd = "  %00 pass&amp;word\\n  with-escapes";
    escaped.add([odd]);
    expect(escaped.string(`password: ${odd}`)).toBe(`password: ${REDACTED}`);
    expect(escaped.string(`cut: ${odd.slice(0, 8)}`)).toBe(`cut: ${REDACTED}`);
    expect(escaped.string(`line\n${odd.slice(0, 14)}`)).not.toContain(odd.slice(0, 8));
  });

  it("redacts a secret's first characters cut off at a character that reads as an escape's start (found by the property test)", () => {
    const slashed = createRedactor();
    const odd = "       \\  spaces and a backslash  ";
    slashed.add([odd]);
    for (const keep of [8, 9, 12]) {
      const cut = odd.slice(0, keep);
      expect(slashed.string(cut), JSON.stringify(cut)).toBe(REDACTED);
      expect(slashed.string(`got: ${cut}`), JSON.stringify(cut)).toBe(`got: ${REDACTED}`);
    }
    // A secret cut in the middle of a real escape is still found before it.
    const percent = createRedactor();
    percent.add(["token%41with%42escapes"]);
    expect(percent.string("token%41with%4")).toBe(REDACTED);
  });

  it("redacts a secret read in two slices, each a value of its own", () => {
    for (const at of [8, 12, secret.length - 8]) {
      const out = redactor.value({ first: `…${secret.slice(0, at)}`, second: `${secret.slice(at)} and more` });
      expect(leaks(JSON.stringify(out), secret)).toEqual([]);
    }
  });

  it("redacts base64 of a file cut at a read limit, and the rest read from an offset", () => {
    const file = Buffer.from(`# config\nGITHUB_TOKEN=${secret}\nother=1\n`);
    const at = file.indexOf(secret.slice(0, 3)) + Math.floor(Buffer.byteLength(secret) / 2);
    const first = file.subarray(0, at).toString("base64");
    const second = file.subarray(at).toString("base64");
    expect(redactor.string(first)).toContain(REDACTED);
    expect(redactor.string(second)).toContain(REDACTED);
  });

  it("redacts the secret at every depth of a 10,000-deep value, keys included, without a depth cut", () => {
    let deep: unknown = { leaf: secret, [secret]: true };
    for (let i = 0; i < 10_000; i++) deep = i % 2 ? [deep] : { next: deep };
    let out = redactor.value(deep) as unknown;
    for (let i = 9_999; i >= 0; i--) out = i % 2 ? (out as unknown[])[0] : (out as { next: unknown }).next;
    expect(out).toEqual({ leaf: REDACTED, [REDACTED]: true });
  });

  it("handles cycles and shared values", () => {
    const shared = { token: secret };
    const cyclic: Record<string, unknown> = { a: shared, b: shared };
    cyclic.self = cyclic;
    const out = redactor.value(cyclic) as Record<string, unknown>;
    expect(out.self).toBe(out);
    expect(out.a).toEqual({ token: REDACTED });
    expect(out.a).toBe(out.b);
  });

  it("keeps values shared and cycles closed in a value of many objects, the first ones met shared by the last", () => {
    const first = { token: secret };
    const root: Record<string, unknown> = { first, list: [] };
    const list = root.list as unknown[];
    for (let i = 0; i < 40; i++) list.push({ i, first, root });
    const out = redactor.value(root) as { first: unknown; list: { first: unknown; root: unknown }[] };
    expect(out.first).toEqual({ token: REDACTED });
    for (const item of out.list) {
      expect(item.first).toBe(out.first);
      expect(item.root).toBe(out);
    }
  });

  it("redacts an error's message, stack, own fields and cause chain, and aggregated errors, keeping their class", () => {
    const root = new TypeError(`connect failed for ${b64(secret)}`);
    const middle = new Error("upstream refused", { cause: root });
    const error = Object.assign(new Error(`wrapped ${secret}`, { cause: middle }), { header: `Bearer ${secret}` });
    const all = new AggregateError([error], `many ${secret}`);
    const out = redactor.value({ err: error, all });
    const err = out.err as Error & { header: string; cause: Error & { cause: Error } };
    expect(err).toBeInstanceOf(Error);
    expect([err.message, err.header, err.cause.message, err.cause.cause.message]).toEqual([
      `wrapped ${REDACTED}`,
      `Bearer ${REDACTED}`,
      "upstream refused",
      `connect failed for ${REDACTED}`,
    ]);
    expect(err.cause.cause).toBeInstanceOf(TypeError);
    expect(Object.keys(err)).toEqual(["header"]); // enumerable as in the original
    expect(out.all).toBeInstanceOf(AggregateError);
    expect((out.all as AggregateError).errors[0]).toBe(err);
    const text = [err, err.cause, err.cause.cause, out.all].map((e) => `${e.message} ${e.stack}`).join(" ");
    expect(leaks(text, secret)).toEqual([]);
    expect(redactor.find(text)).toBeUndefined();
  });

  it("finds the secret's UTF-8 bytes inside binary content, plainly and encoded", () => {
    const noise = randomBytes(4096);
    for (const inner of [Buffer.from(secret), Buffer.from(b64(secret)), Buffer.from(hex(secret))]) {
      const content = new Uint8Array(Buffer.concat([noise, inner, noise]));
      expect(redactor.find(content)).toBeDefined();
    }
  });
});

describe("what the redactor leaves alone", () => {
  it("judges a text decoded after a longer one on its own characters (decoding reuses its arrays)", () => {
    const redactor = redactorOf(TOKEN);
    // The first leaves the whole token decoded in the reused arrays; the second overwrites only its first 8
    // characters, so a decoding that read past its own would find the token's other 30 and redact this text.
    const first = `${TOKEN.slice(0, 12)}\n  ${TOKEN.slice(12)} %41 and \\n`;
    expect(leaks(redactor.string(first), TOKEN)).toEqual([]);
    const second = `${TOKEN.slice(0, 6)}\nxy`;
    expect(redactor.string(second)).toBe(second);
    const third = `${TOKEN.slice(0, 6)}%41\nxy`;
    expect(redactor.string(third)).toBe(third);
  });

  it("still finds a secret split across a line in a text too long for the reused arrays", () => {
    const redactor = redactorOf(TOKEN);
    const text = `${"x ".repeat(40_000)}${TOKEN.slice(0, 15)}\n\t${TOKEN.slice(15)} end`;
    expect(leaks(redactor.string(text), TOKEN)).toEqual([]);
    expect(redactor.string(`short\n${TOKEN.slice(0, 20)}`)).not.toContain(TOKEN.slice(0, 20));
  });

  const redactor = redactorOf(TOKEN, "correct-horse-battery-staple", "short12");

  it.each([
    ["plain words", "the token is missing; set a password and keep the secret safe"],
    ["the token's well-known prefix", "GitHub tokens start with ghp_ and are 40 characters long"],
    ["a 7-character fragment inside text", `see ${TOKEN.slice(10, 17)} in the middle`],
    ["an 11-character fragment inside text", `see ${TOKEN.slice(4, 15)} in the middle`],
    ["a 7-character prefix at the end", `it ends with ${TOKEN.slice(0, 7)}`],
    ["words of a passphrase secret", "a correct horse needs a battery, not a staple"],
    ["a passphrase's first word at the end", "the answer is correct"],
    ["the short secret with a letter missing", "short1 and hort12 stay"],
    ["base64 of unrelated data", randomBytes(3000).toString("base64")],
    ["hex of unrelated data", randomBytes(3000).toString("hex")],
    ["HTML and URL text around no secret", "<a href='/?q=a%20b&amp;c=d'>caf&eacute;</a> 100% &lt;3"],
  ])("keeps %s", (_case, text) => {
    expect(redactor.string(text)).toBe(text);
    expect(redactor.find(text)).toBeUndefined();
    expect(redactor.find(Buffer.from(text))).toBeUndefined();
  });

  it("matches a secret under 8 characters only whole and plain, and ignores one under 4", () => {
    const short = redactorOf("abc", "s3cr3t!");
    expect(short.string("abc s3cr3t! abcd")).toBe(`abc ${REDACTED} abcd`);
    expect(short.string(b64("s3cr3t!"))).toBe(b64("s3cr3t!"));
  });

  it("returns the very same value and costs nothing while it knows no secret", () => {
    const none = createRedactor();
    const value = { a: [1, "two"] };
    expect(none.active).toBe(false);
    expect(none.value(value)).toBe(value);
    expect(none.find("anything")).toBeUndefined();
  });

  it("copies values without a secret as they are, key order and all", () => {
    const value = {
      z: 1,
      a: [3, { y: "two", b: null }],
      m: { when: new Date(0), where: new URL("https://example.com/x") },
    };
    expect(JSON.stringify(redactor.value(value))).toBe(JSON.stringify(value));
  });

  it("never says which secret it found", () => {
    expect(Object.keys(redactor.find(`x ${TOKEN} y`) ?? {})).toEqual(["form"]);
  });
});

/** Every run of 8 or more characters of the secret (plain) still in the text. */
function leaks(text: string, secret: string): string[] {
  const found: string[] = [];
  for (let i = 0; i + 8 <= secret.length; i++) {
    const piece = secret.slice(i, i + 8);
    if (text.includes(piece)) found.push(piece);
  }
  return found;
}

describe("the redactor's shortcuts, attacked", () => {
  it("forgets the names it found clean when a secret is added: a key that is the new secret is redacted", () => {
    const redactor = redactorOf("an-older-secret-value");
    const value = { [TOKEN]: 1, [`x-${TOKEN}`]: 2 };
    expect(Object.keys(redactor.value(value))).toEqual(Object.keys(value));
    redactor.add([TOKEN]);
    expect(Object.keys(redactor.value(value))).toEqual([REDACTED, `x-${REDACTED}`]);
    expect(Object.keys(redactor.value(new Error("e", { cause: value })).cause as object)).toEqual([
      REDACTED,
      `x-${REDACTED}`,
    ]);
  });

  it("finds the secret after words sharing its first characters, in short and long texts, cached or not", () => {
    const redactor = redactorOf(TOKEN);
    const decoys = `${TOKEN.slice(0, 4)}zzzz ${TOKEN.slice(0, 6)}yy ${TOKEN.slice(0, 5)}.echo`;
    for (const text of [decoys, `${decoys} and ${"filler ".repeat(40)}`]) {
      expect(redactor.string(text)).toBe(text);
      expect(redactor.string(text)).toBe(text);
      expect(redactor.string(`${text} ${TOKEN}`)).toBe(`${text} ${REDACTED}`);
      expect(redactor.string(`${text} ${TOKEN.slice(0, 14)}`)).toBe(`${text} ${REDACTED}`);
      expect(redactor.value({ [`${text}${TOKEN}`]: `${TOKEN}${text}` })).toEqual({
        [`${text}${REDACTED}`]: `${REDACTED}${text}`,
      });
    }
  });

  it("keeps an own __proto__ key a key, redacted, and changes no prototype, in small values and large ones", () => {
    const redactor = redactorOf(TOKEN);
    const small = JSON.parse(`{"__proto__": {"polluted": "${TOKEN}"}, "ok": 1}`);
    const large = { items: Array.from({ length: 40 }, () => ({})), inner: small };
    const smallOut = redactor.value(small);
    const largeOut = redactor.value(large) as { inner: unknown };
    for (const out of [smallOut, largeOut.inner]) {
      expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
      expect(Object.keys(out as object)).toEqual(["__proto__", "ok"]);
      expect(Object.getOwnPropertyDescriptor(out, "__proto__")?.value).toEqual({ polluted: REDACTED });
    }
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it("copies a value with its own toJSON, a null prototype or a class as a larger value is copied", () => {
    const redactor = redactorOf(TOKEN);
    class Holder {
      token = TOKEN;
    }
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { token: TOKEN });
    const value = {
      own: { toJSON: () => ({ token: TOKEN }) },
      bare,
      holder: new Holder(),
      bytes: new TextEncoder().encode(TOKEN),
      when: new Date(0),
    };
    const out = redactor.value(value) as Record<string, unknown>;
    for (const [name, kind] of Object.entries(value)) {
      expect((redactor.value({ [name]: kind }) as Record<string, unknown>)[name]).toEqual(out[name]);
    }
    expect(out.own).toEqual({ token: REDACTED });
    expect(out.bare).toEqual({ token: REDACTED });
    expect(out.holder).toEqual({ token: REDACTED });
    expect(out.bytes).toBe(REDACTED);
    expect(out.when).toBe(new Date(0).toJSON());
    const many = { list: Array.from({ length: 40 }, () => ({ ...value })) };
    for (const item of (redactor.value(many) as { list: Record<string, unknown>[] }).list) {
      expect(item).toEqual({ ...out, own: { token: REDACTED } });
    }
  });

  it("redacts every string of a value deeper than the short copy goes, and of one with more objects", () => {
    const redactor = redactorOf(TOKEN);
    let deep: unknown = { token: TOKEN };
    for (let i = 0; i < 20; i++) deep = { next: deep, [`k${i}`]: TOKEN };
    expect(JSON.stringify(redactor.value(deep))).not.toContain(TOKEN.slice(0, 12));
    const wide = Array.from({ length: 20 }, (_, i) => ({ [TOKEN]: `${i} ${TOKEN}` }));
    expect(redactor.value(wide)).toEqual(wide.map((_, i) => ({ [REDACTED]: `${i} ${REDACTED}` })));
  });
});

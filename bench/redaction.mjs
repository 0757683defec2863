// Redaction throughput: how long the host's redactor takes over texts of the kinds skills return and the host logs,
// with two secrets known (as a host holding two credentials). Every text a call answers with, every log line and
// every audit line passes it. The texts are generated here, the same on every run: one line of prose, Markdown,
// source code, pretty-printed JSON, a JSON text inside a JSON string, a log line; and the Markdown with a secret in
// it, JSON-escaped. Each cell is the median of rounds of many texts (each a fresh string, as a call's would be).
// Writes its section of bench/RESULTS.md. Run with `pnpm bench` or `node bench/redaction.mjs [--rounds 5]`.
import os from "node:os";
import { createRedactor } from "@skillport/host/testing";
import { WROTE, writeSection } from "./results-file.mjs";
import { flag } from "./run-options.mjs";
import { median } from "./sequential-calls.mjs";

const HEADING = "# Redaction: the redactor over texts of each kind";
const ROUNDS = flag("--rounds", 5);
const SIZE = 8 * 1024;
const SECRETS = ["sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c", "ghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5"];
const started = performance.now();

/** Repeats `make(i)` for i = 0, 1, … until the text is `SIZE` characters, cut there. */
const grow = (make) => {
  let text = "";
  for (let i = 0; text.length < SIZE; i++) text += make(i);
  return text.slice(0, SIZE);
};
const WORDS = ["the", "skill", "answers", "with", "a", "list", "of", "records", "and", "their", "owners", "today"];
const word = (i) => WORDS[(i * 7) % WORDS.length];

const prose = grow((i) => `${word(i)} `);
/** The lines of a text, one after another: line k is `lines(k)[k % lines(k).length]`. */
const linesOf = (lines) =>
  grow((i) => {
    const all = lines(i);
    return `${all[i % all.length]}\n`;
  });
const markdown = linesOf((i) => [
  `## Section ${i}`,
  "",
  `- ${word(i)} & ${word(i + 1)}: 50% of \`records\``,
  `- see [notes](./n${i}.md)`,
  "",
]);
const code = linesOf((i) => [
  `export function f${i}(input: string): string {`,
  `  const re = /^[a-z]+\\s*=\\s*"([^"]*)"$/;`,
  `  return input.replace(re, "$1").split("\\n").join(" & ");`,
  "}",
  "",
]);
const record = (i) => ({
  id: i,
  title: `Issue ${i}: "quoted" & more`,
  body: `Line one\nLine two, C:\\temp\\x, 50% off`,
});
const prettyJson = JSON.stringify(
  Array.from({ length: 80 }, (_, i) => record(i)),
  null,
  2,
).slice(0, SIZE);
const jsonInString = JSON.stringify(prettyJson).slice(0, SIZE);
const logLine = `${JSON.stringify({ level: 30, time: "2026-12-03T08:00:00.000Z", msg: 'tool call "notes.search" done\nin 3 ms', caller: "token:ci" })}\n`;
const withSecret = `${markdown.slice(0, SIZE / 2)}${JSON.stringify(`token: ${SECRETS[0]}`)}${markdown.slice(SIZE / 2)}`;

const TEXTS = [
  ["one line of prose", prose],
  ["Markdown", markdown],
  ["source code", code],
  ["pretty-printed JSON", prettyJson],
  ["a JSON text inside a JSON string", jsonInString],
  ["a log line", logLine],
  ["Markdown holding a secret, JSON-escaped", withSecret],
];

const redactor = createRedactor();
redactor.add(SECRETS);

/** µs per text over `count` fresh copies of `text` (a suffix makes each its own string). */
function timeOne(text, count) {
  // Each its own flat string, as a text read from a file or parsed from JSON is (not a concatenation of two).
  const copies = Array.from({ length: 64 }, (_, i) => JSON.parse(JSON.stringify(`${text}${i}`)));
  let kept = 0;
  const began = performance.now();
  for (let i = 0; i < count; i++) kept += redactor.string(copies[i % copies.length]).length;
  if (kept === 0) throw new Error("nothing came back");
  return ((performance.now() - began) * 1000) / count;
}

const countFor = (text) => Math.max(200, Math.round(2e7 / text.length / 10));
for (const [, text] of TEXTS) timeOne(text, countFor(text)); // warm-up: the matcher compiled, the code optimised
const samples = new Map(TEXTS.map(([name]) => [name, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, text] of TEXTS) samples.get(name).push(timeOne(text, countFor(text)));
}
if (!redactor.string(withSecret).includes("[REDACTED]") || redactor.string(withSecret).includes(SECRETS[0])) {
  throw new Error("the secret was not redacted");
}

const rows = TEXTS.map(([name, text]) => {
  const us = median(samples.get(name));
  return `| ${name} | ${text.length.toLocaleString("en-US")} | ${us.toFixed(1)} | ${((us * 1000) / text.length).toFixed(1)} | ${(text.length / us).toFixed(0)} |`;
});
const cpus = os.cpus();
const load = os
  .loadavg()
  .map((l) => l.toFixed(1))
  .join(", ");
writeSection(
  HEADING,
  `${HEADING}

\`pnpm bench\` (bench/redaction.mjs) — the host's redactor (\`createRedactor\`, as every answer, log line and audit
line passes it) with two secrets known, over texts generated the same on every run; each cell is the median of
${ROUNDS} rounds, each over thousands of fresh copies of the text (each a flat string, as a text read from a file or
parsed from JSON is: a concatenation is slower to read). A text with line breaks or escapes is decoded
before it is scanned (a secret wrapped across lines or escaped is found), so it costs more than one line of plain
text; the last row holds a secret, which is replaced. The whole run took ${Math.round((performance.now() - started) / 1000)} s.

Machine: ${cpus[0]?.model ?? "unknown CPU"}, ${cpus.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB,
${os.type()} ${os.release()}, Node ${process.version}. Date: ${new Date().toISOString().slice(0, 10)}.
Load average when the run ended: ${load}.

| text | characters | µs per text | ns per character | MB/s |
| --- | --: | --: | --: | --: |
${rows.join("\n")}
`,
);
process.stderr.write(`${rows.join("\n")}\n${WROTE}\n`);

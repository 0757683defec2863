// Draws docs/images/bench-stdio.svg from the main table of bench/RESULTS.md (the side-by-side comparison over
// stdio): calls per second and start to the first tools/list for every server, Skillport's rows in colour. `pnpm
// bench` and `pnpm bench:quick` run it after the comparison rewrites its table; the chart is committed with the
// results, and a test (packages/cli/test/docs-generated.test.ts) fails when it is not what this script draws from them.
//
//   node bench/chart.mjs            writes the chart
//   node bench/chart.mjs --stdout   prints it instead
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const CHART = "docs/images/bench-stdio.svg";

/** The panels drawn, each one column of the table. */
const PANELS = [
  { column: "calls/s", title: "Calls per second over stdio (higher is better)", digits: 0 },
  { column: "start → tools/list ms", title: "Start to the first tools/list, ms (lower is better)", digits: 0 },
];

const WIDTH = 760;
const LABEL = 300;
const BAR = 360;
const ROW = 22;
const TITLE = 30;
const GAP = 18;

/** The SVG for the first table of RESULTS.md's text. */
export function renderChart(results) {
  const { header, rows } = firstTable(results);
  const date = /Date: (\d{4}-\d{2}-\d{2})/.exec(results)?.[1];
  const machine = /^Machine: (.+?),\s*$/m.exec(results)?.[1];
  const parts = [];
  let y = 34;
  parts.push(text(16, 22, "Skillport beside the alternatives, one SDK client over stdio", { size: 15, weight: 600 }));
  for (const panel of PANELS) {
    const at = header.indexOf(panel.column);
    if (at === -1) throw new Error(`[bench] the first table of bench/RESULTS.md has no "${panel.column}" column`);
    const values = rows.map((row) => number(row.cells[at]));
    const max = Math.max(...values);
    parts.push(text(16, y + 20, panel.title, { size: 13, weight: 600 }));
    y += TITLE;
    for (const [i, row] of rows.entries()) {
      const value = values[i];
      const width = Math.max(1, Math.round((value / max) * BAR));
      const top = y + i * ROW;
      const fill = row.ours ? "#3451b2" : "#a8b1bd";
      parts.push(text(LABEL - 8, top + 15, row.name, { anchor: "end", weight: row.ours ? 600 : 400 }));
      parts.push(`<rect x="${LABEL}" y="${top + 3}" width="${width}" height="${ROW - 6}" rx="2" fill="${fill}"/>`);
      parts.push(text(LABEL + width + 6, top + 15, format(value, panel.digits)));
    }
    y += rows.length * ROW + GAP;
  }
  const source = ["From bench/RESULTS.md", date, machine].filter((p) => p !== undefined).join(", ");
  parts.push(text(16, y + 4, `${source}. Each cell is the median over rounds.`, { size: 11, fill: "#5c6370" }));
  const height = y + 16;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="-apple-system, BlinkMacSystemFont, 'Segoe UI', Helvetica, Arial, sans-serif" font-size="12" role="img" aria-label="Benchmark: Skillport beside the alternatives over stdio">`,
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
    ...parts,
    "</svg>",
    "",
  ].join("\n");
}

// --- internal ---

/** The first Markdown table of the text: its header cells and its rows (name, cells, whether it is Skillport's). */
function firstTable(markdown) {
  const lines = markdown.split("\n");
  const start = lines.findIndex((line, i) => line.startsWith("|") && /^\|\s*-/.test(lines[i + 1] ?? ""));
  if (start === -1) throw new Error("[bench] bench/RESULTS.md has no table");
  const cells = (line) =>
    line
      .slice(1, -1)
      .split("|")
      .map((c) => c.trim());
  const header = cells(lines[start]);
  const rows = [];
  for (let i = start + 2; i < lines.length && lines[i].startsWith("|"); i++) {
    const row = cells(lines[i]);
    const ours = /^\*\*.*\*\*$/.test(row[0]);
    rows.push({ name: row[0].replace(/\*\*/g, ""), cells: row, ours });
  }
  return { header, rows };
}

function number(cell) {
  const value = Number(cell.replace(/[,×]/g, ""));
  if (!Number.isFinite(value)) throw new Error(`[bench] "${cell}" in bench/RESULTS.md is not a number`);
  return value;
}

function format(value, digits) {
  return value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function text(x, y, content, { size = 12, weight = 400, anchor = "start", fill = "#1f2328" } = {}) {
  const escaped = content.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  const attributes = [`x="${x}"`, `y="${y}"`, `fill="${fill}"`];
  if (size !== 12) attributes.push(`font-size="${size}"`);
  if (weight !== 400) attributes.push(`font-weight="${weight}"`);
  if (anchor !== "start") attributes.push(`text-anchor="${anchor}"`);
  return `<text ${attributes.join(" ")}>${escaped}</text>`;
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const svg = renderChart(readFileSync(path.join(ROOT, "bench/RESULTS.md"), "utf8"));
  if (process.argv.includes("--stdout")) process.stdout.write(svg);
  else {
    writeFileSync(path.join(ROOT, CHART), svg);
    console.log(`[bench] drew ${CHART} from bench/RESULTS.md`);
  }
}

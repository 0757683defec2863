import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO, runNode } from "./workspace.js";

// What the docs site shows but nobody writes by hand: the manifest's field reference, rendered from the manifest's
// JSON Schema, and the benchmark chart, drawn from bench/RESULTS.md. Each is committed; each must be what its script
// makes from what is committed beside it.

describe("docs/manifest-reference.md", () => {
  it("is what docs/scripts/manifest-reference.mjs renders from packages/host/manifest.schema.json", async () => {
    const rendered = await runNode(path.join(REPO, "docs/scripts/manifest-reference.mjs"), ["--stdout"], REPO);
    expect(rendered.stderr).toBe("");
    expect(rendered.code).toBe(0);
    const committed = await readFile(path.join(REPO, "docs/manifest-reference.md"), "utf8");
    expect(committed, "run `pnpm docs:reference` and commit docs/manifest-reference.md").toBe(rendered.stdout);
  });

  it("names every field of the schema, with its default", async () => {
    const schema = JSON.parse(await readFile(path.join(REPO, "packages/host/manifest.schema.json"), "utf8"));
    const page = await readFile(path.join(REPO, "docs/manifest-reference.md"), "utf8");
    const rows = page.split("\n").filter((line) => line.startsWith("| `"));
    const fields = propertiesOf(schema);
    expect(fields.length).toBeGreaterThan(80);
    for (const { name, node } of fields) {
      const row = rows.find((r) => r.startsWith(`| \`${name}\``) || r.includes(`.${name}\` `));
      expect(row, `a row for "${name}"`).toBeDefined();
      if (node.default !== undefined && row !== undefined) {
        expect(rows.some((r) => r.includes(`\`${JSON.stringify(node.default)}\``))).toBe(true);
      }
    }
  });
});

describe("docs/images/bench-stdio.svg", () => {
  it("is what bench/chart.mjs draws from bench/RESULTS.md", async () => {
    const drawn = await runNode(path.join(REPO, "bench/chart.mjs"), ["--stdout"], REPO);
    expect(drawn.stderr).toBe("");
    expect(drawn.code).toBe(0);
    const committed = await readFile(path.join(REPO, "docs/images/bench-stdio.svg"), "utf8");
    expect(committed, "run `node bench/chart.mjs` and commit docs/images/bench-stdio.svg").toBe(drawn.stdout);
  });

  it("draws a bar for every server of the table, Skillport's in colour", async () => {
    const svg = await readFile(path.join(REPO, "docs/images/bench-stdio.svg"), "utf8");
    const results = await readFile(path.join(REPO, "bench/RESULTS.md"), "utf8");
    const table = results.slice(results.indexOf("\n| server"));
    const servers = table
      .split("\n")
      .slice(3)
      .filter((line, i, lines) => line.startsWith("|") && lines.slice(0, i).every((l) => l.startsWith("|")))
      .map((line) => (line.split("|")[1] as string).trim());
    expect(servers.length).toBeGreaterThan(4);
    for (const server of servers) {
      const name = server.replace(/\*\*/g, "").replace(/&/g, "&amp;");
      // One label per panel.
      expect(svg.split(`>${name}</text>`).length - 1, name).toBe(2);
    }
    expect(svg).toContain('fill="#3451b2"');
  });
});

// --- internal ---

interface Property {
  name: string;
  node: { default?: unknown };
}

/** Every property any object of the schema declares, by its own name. */
function propertiesOf(node: unknown): Property[] {
  if (Array.isArray(node)) return node.flatMap(propertiesOf);
  if (node === null || typeof node !== "object") return [];
  const found: Property[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (key === "properties" && value !== null && typeof value === "object") {
      for (const [name, property] of Object.entries(value)) found.push({ name, node: property as Property["node"] });
    }
    found.push(...propertiesOf(value));
  }
  return found;
}

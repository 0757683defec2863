// mockContext's documented example — in its JSDoc (packages/testing/src/mock-context.ts) and in the testing kit's
// README — run as written, from this package's folder; a second test keeps the two documents saying the same thing.
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { mockContext } from "@skillport/testing";
import { describe, expect, it } from "vitest";
import { register, searchNotes } from "../src/index.js";

const TESTING = fileURLToPath(new URL("../../../packages/testing/", import.meta.url));

describe("mockContext's documented example", () => {
  it("runs: the config is built as the host builds it, defaults and all", async () => {
    // #region example
    // in skills/skill-notes: the config as a manifest gives it; the context holds it validated, with defaults
    const ctx = mockContext({ skill: register, token: "test-token", config: { vault: "../../examples/vault" } });
    const out = await searchNotes({ keyword: "agent", limit: 5, scope: "ai-agent" }, ctx);
    expect(out.data.hits.length).toBeGreaterThan(0);
    expect(ctx.logs).toEqual([]);
    // #endregion example
  });

  it("is the example the JSDoc and the README show", async () => {
    const example = regionOf(await readFile(fileURLToPath(import.meta.url), "utf8"));
    const source = await readFile(`${TESTING}src/mock-context.ts`, "utf8");
    // The JSDoc right above `export function mockContext`: its lines after @example.
    const jsdoc = /\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*export function mockContext/.exec(source)?.[1] ?? "";
    const documented = jsdoc
      .split("@example")[1]
      ?.split("\n")
      .map((line) => line.replace(/^\s*\* ?/, "").trim())
      .filter((line) => line !== "");
    expect(documented).toEqual(example);
    const readme = await readFile(`${TESTING}README.md`, "utf8");
    const section = readme.split("## `mockContext(options?)`")[1]?.split("\n## ")[0] ?? "";
    const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
    expect(block).toContain(example.join("\n"));
  });
});

/** The lines between `// #region example` and `// #endregion example` in this file, trimmed. */
function regionOf(text: string): string[] {
  const region = text.split("// #region example\n")[1]?.split("// #endregion example")[0] ?? "";
  return region
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
}

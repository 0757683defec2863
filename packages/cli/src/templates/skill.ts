// The files `skillport new` writes for a skill package. Kept as template strings so the CLI ships no loose files.

/** What every template needs to know. */
export interface SkillTemplateInput {
  /** The capability, as given: `git-history`. */
  name: string;
  /** The npm package: `@skillport/skill-git-history`. */
  packageName: string;
  /** `workspace:` ranges, the root's tsconfig.base.json and vitest.shared.ts are there to use. */
  workspace: { dependencies: boolean; tsconfigBase: boolean; vitestShared: boolean };
  /** The version range of @skillport packages outside a workspace: `^0.1.0`. */
  skillportRange: string;
  year: number;
}

/** Pinned with the Skillport toolchain; a scaffolded skill starts on the versions Skillport is tested with. */
const ZOD = "4.6.7";
const STANDALONE_DEV = { "@types/node": "^20.19.8", tsup: "^8.5.1", typescript: "^5.9.3", vitest: "^4.1.12" };

/** Relative path → file content, for a new skill package. */
export function skillFiles(input: SkillTemplateInput): Record<string, string> {
  const n = names(input.name);
  return {
    "package.json": packageJson(input),
    "README.md": readme(input, n),
    "SKILL.md": skillMd(input, n),
    LICENSE: license(input),
    "tsconfig.json": tsconfig(input, false),
    "tsconfig.test.json": tsconfig(input, true),
    "tsup.config.ts": TSUP,
    "vitest.config.ts": input.workspace.vitestShared
      ? 'export { shared as default } from "../../vitest.shared.ts";\n'
      : VITEST_STANDALONE,
    "src/index.ts": indexTs(input, n),
    [`src/${n.file}.ts`]: capabilityTs(n),
    [`test/${n.file}.test.ts`]: testTs(n),
  };
}

/** The changeset announcing the new package. */
export function skillChangeset(input: SkillTemplateInput): string {
  const n = names(input.name);
  return `---
"${input.packageName}": minor
---

First release of \`${input.packageName}\`: the \`${n.tool}\` tool. Say here, for the people who will install it,
what the skill lets an agent do.
`;
}

/** The example tool's name: `get_<capability>` with dashes as underscores (`get_git_history`). */
export function toolName(name: string): string {
  return names(name).tool;
}

// --- internal ---

/** The line width of the repository's formatter (biome.json); generated code is laid out as Biome would. */
const LINE_WIDTH = 120;

/** `flat` when every line of it fits in the line width, else `broken` (the same code as Biome breaks it). */
function fit(flat: string, broken: string): string {
  return flat.split("\n").every((line) => line.length <= LINE_WIDTH) ? flat : broken;
}

/** A Markdown table with its columns padded, as Biome formats one. */
function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(" | ")} |`;
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

interface Names {
  /** `git history` */
  words: string;
  /** `get_git_history` */
  tool: string;
  /** `get-git-history` */
  file: string;
  /** `getGitHistory` */
  fn: string;
  /** `GetGitHistory` */
  type: string;
  /** `Get git history` */
  title: string;
}

function names(name: string): Names {
  const parts = ["get", ...name.split("-").filter((p) => p !== "")];
  const cap = (p: string) => p.charAt(0).toUpperCase() + p.slice(1);
  const [first = "get", ...rest] = parts;
  return {
    words: parts.slice(1).join(" "),
    tool: parts.join("_"),
    file: parts.join("-"),
    fn: first + rest.map(cap).join(""),
    type: parts.map(cap).join(""),
    title: cap(parts.join(" ")),
  };
}

function packageJson(input: SkillTemplateInput): string {
  const ws = input.workspace.dependencies;
  const pkg = {
    name: input.packageName,
    version: "0.0.0",
    description: `The ${input.name} skill for Skillport.`,
    license: "MIT",
    type: "module",
    sideEffects: false,
    engines: { node: ">=20.19" },
    exports: {
      ".": { types: "./dist/index.d.ts", import: "./dist/index.js" },
      "./package.json": "./package.json",
    },
    files: ["dist", "SKILL.md"],
    scripts: { build: "tsup", typecheck: "tsc -p tsconfig.test.json", test: "vitest run" },
    peerDependencies: { "@skillport/core": ws ? "workspace:^" : input.skillportRange },
    dependencies: { zod: ZOD },
    devDependencies: {
      "@skillport/core": ws ? "workspace:*" : input.skillportRange,
      "@skillport/testing": ws ? "workspace:*" : input.skillportRange,
      ...(ws ? {} : STANDALONE_DEV),
    },
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

function tsconfig(input: SkillTemplateInput, test: boolean): string {
  const options = test ? '"noEmit": true, "rootDir": "."' : '"rootDir": "src", "outDir": "dist"';
  const include = test ? '["src", "test"]' : '["src"]';
  if (input.workspace.tsconfigBase) {
    return `{
  "extends": "../../tsconfig.base.json",
  "compilerOptions": { ${options} },
  "include": ${include}
}
`;
  }
  return `{
  "compilerOptions": {
    "target": "ES2023",
    "lib": ["ES2023"],
    "module": "NodeNext",
    "moduleResolution": "NodeNext",
    "strict": true,
    "noUncheckedIndexedAccess": true,
    "isolatedModules": true,
    "verbatimModuleSyntax": true,
    "skipLibCheck": true,
    "declaration": true,
    "types": ["node"],
    ${options}
  },
  "include": ${include}
}
`;
}

const TSUP = `import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm"],
  dts: true,
  clean: true,
  sourcemap: true,
  target: "node20",
});
`;

const VITEST_STANDALONE = `import { defineConfig } from "vitest/config";

export default defineConfig({ test: { include: ["test/**/*.test.ts"], testTimeout: 30_000, hookTimeout: 30_000 } });
`;

function indexTs(input: SkillTemplateInput, n: Names): string {
  // Biome's order: capitalised names first.
  const exported = [`${n.type}Input`, `${n.type}Output`, n.fn];
  const from = `from "./${n.file}.js";`;
  return `// Any new export added here becomes public API. Use named exports, not wildcards.
import { defineSkill } from "@skillport/core";
import { ${n.fn}Tool } ${from}

/** The ${input.name} skill. The host reads its tools from here; the version comes from package.json. */
export const register = defineSkill({
  name: "${input.name}",
  description: "What the ${input.name} skill gives an agent, in one line.",
  credentials: {
    token: { description: "The credential this skill sends upstream, if it needs one", required: false },
  },
  tools: [${n.fn}Tool],
});

export type { ${n.type}Params } ${from}
${fit(`export { ${exported.join(", ")} } ${from}`, `export {\n${exported.map((e) => `  ${e},\n`).join("")}} ${from}`)}
`;
}

function capabilityTs(n: Names): string {
  return `import type { SkillContext } from "@skillport/core";
import { defineTool, result } from "@skillport/core";
import { z } from "zod";

export const ${n.type}Input = z
  .object({
    query: z.string().min(1).max(200).describe("What to look up, in plain words"),
  })
  .strict();

export const ${n.type}Output = z.object({
  query: z.string(),
  answer: z.string().describe("The answer, as text"),
});

export type ${n.type}Params = z.output<typeof ${n.type}Input>;

/** The capability: plain params in, plain data out. No process.env, no module state, nothing on stdout. */
${fit(
  `export async function ${n.fn}(params: ${n.type}Params, ctx: SkillContext) {`,
  `export async function ${n.fn}(\n  params: ${n.type}Params,\n  ctx: SkillContext,\n) {`,
)}
  ctx.signal.throwIfAborted();
  // Do the real work here: send ctx.token as the credential and pass ctx.signal to every request.
  const answer = \`Nothing is wired up yet to answer “\${params.query}”.\`;
  return result({ query: params.query, answer }, { message: \`Looked up “\${params.query}”\` });
}

export const ${n.fn}Tool = defineTool({
  name: "${n.tool}",
  title: "${n.title}",
  description:
    "Look up ${n.words} for a query and return the answer as text. Say here what the tool does, what it returns and when a model should use it.",
  input: ${n.type}Input,
  output: ${n.type}Output,
  risk: "read_only",
  annotations: { idempotentHint: true, openWorldHint: false },
  examples: [{ query: "an example query" }],
  buildBrief: (p) => \`${n.title} for “\${p.query}”\`,
  run: ${n.fn},
});
`;
}

function testTs(n: Names): string {
  return `import { mockContext, testSkill } from "@skillport/testing";
import { describe, expect, it } from "vitest";
import { ${n.fn}, register } from "../src/index.js";

// The conformance suite: spec lint, a pure buildBrief, zod/JSON Schema parity, abort, errors, no leaked token.
testSkill(register);

describe("${n.fn}", () => {
  it("answers the query, with a mocked token and no server", async () => {
    const ctx = mockContext({ token: "test-token" });
    const out = await ${n.fn}({ query: "an example query" }, ctx);
    expect(out.data).toMatchObject({ query: "an example query" });
    expect(ctx.logs).toEqual([]);
  });

  it("stops at once when the call is already cancelled", async () => {
    const ctx = mockContext({ signal: AbortSignal.abort() });
    await expect(${n.fn}({ query: "x" }, ctx)).rejects.toThrow();
  });
});
`;
}

function readme(input: SkillTemplateInput, n: Names): string {
  return `# ${input.packageName}

What the ${input.name} skill gives an agent, in one paragraph.

## Tools

${table(["tool", "risk", "arguments"], [[`\`${n.tool}\``, "read_only", "`query` (1–200 characters) → `answer`"]])}

## Use it

\`\`\`jsonc
// skills.manifest.json
{ "package": "${input.packageName}", "mcp": "${input.name}" }
\`\`\`

## Develop

\`\`\`sh
pnpm build && pnpm test   # the conformance suite (testSkill) and the unit tests, with mocked tokens
\`\`\`
`;
}

/**
 * The skill's instructions for an agent (Agent Skills format), served beside its tools through the MCP Skills
 * extension: the frontmatter names the skill and says when to use it; the body says how to call its tools.
 * testSkill() checks both: the frontmatter, and that every tool it names exists.
 */
function skillMd(input: SkillTemplateInput, n: Names): string {
  return `---
name: ${input.name}
description: Looks up ${n.words} for a query. Say here what the skill lets an agent do, and when an agent should use it.
---

# Using ${input.name}

- Call \`${n.tool}\` with a \`query\` in plain words (1-200 characters); it answers with an \`answer\`.
- Say here what an agent should know to call the tools well: which to call first, what a refusal means, what to do
  next.
`;
}

function license(input: SkillTemplateInput): string {
  const holder = input.packageName.startsWith("@skillport/")
    ? "The Skillport authors"
    : `The ${input.packageName} authors`;
  return `MIT License

Copyright (c) ${input.year} ${holder}

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
`;
}

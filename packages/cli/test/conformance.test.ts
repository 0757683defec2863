// The official MCP conformance suite (@modelcontextprotocol/conformance, on Node.js 22 from the npm package `node`)
// against a real `skillport serve --http` serving the fixture skill unprefixed: every 2025-11-25 server scenario,
// the 2026-07-28 requirement set, and the Skills extension's scenarios in both eras. Only the scenarios in
// expected-failures.yaml may fail; the table in docs/contributing.md must say what the runs found. Prints nothing
// when green.
import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, REPO, runCombined } from "./workspace.js";

// The runner, its Node.js 22 and the fixture live in packages/conformance, so that Node.js 22 is on no package's
// PATH but that one's: the CLI and these tests run on the project's Node.js.
const PACKAGE = path.join(REPO, "packages/conformance");
const NODE_22 = path.join(PACKAGE, "node_modules/node/bin/node");
const RUNNER = path.join(PACKAGE, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const EXPECTED_FAILURES = path.join(PACKAGE, "expected-failures.yaml");
const SKILLS_SCENARIOS = ["sep-2640-skills-enumeration", "sep-2640-skills-manifest", "sep-2640-skills-directory"];

/** Each era: the runner's selection of its server scenarios (and how `list` names it), then the Skills extension. */
const ERAS = [
  {
    era: "2025-11-25",
    label: "2025-11-25 (initialize, sessions)",
    select: ["--spec-version", "2025-11-25", "--suite", "all"],
    list: ["--spec-version", "2025-11-25"],
  },
  {
    era: "2026-07-28",
    label: "2026-07-28 (stateless)",
    select: ["--requirements", "2026-07-28"],
    list: ["--requirements", "2026-07-28"],
  },
] as const;

interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "SKIPPED" | "INFO";
  errorMessage?: string;
}

interface EraResult {
  scenarios: Map<string, Check[]>;
  failed: string[];
}

let server: Served;
let work: string;
const found = new Map<string, EraResult>();

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), "skillport-conformance-"));
  server = await serveFixture(work);
}, 120_000);

afterAll(async () => {
  await server?.stop();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

describe("the official MCP conformance suite against skillport serve --http", () => {
  it.each(ERAS)(
    "passes every server scenario of $era and the Skills extension's, but the expected failures",
    async ({ era, select, list }) => {
      const expected = await expectedFailures();
      const out = path.join(work, era);
      const runs = [
        [...select],
        ...SKILLS_SCENARIOS.map((scenario) => ["--scenario", scenario, "--spec-version", era, "--force"]),
      ];
      const transcripts: string[] = [];
      for (const selection of runs) {
        const run = await runner(["server", "--url", server.url, ...selection, "-o", out, ...baseline()]);
        transcripts.push(`$ conformance server ${selection.join(" ")} (exit ${run.code})\n${run.output}`);
      }
      const scenarios = await resultsIn(out);
      const failed = [...scenarios].filter(([, checks]) => checks.some((c) => c.status === "FAILURE")).map(([n]) => n);
      found.set(era, { scenarios, failed });
      const why = () =>
        `${describeFailures(scenarios, expected)}\n\nserver log:\n${server.log()}\n\n${transcripts.join("\n")}`;

      // Every scenario the runner selects for this era ran and left results.
      const listed = await listedServerScenarios(list);
      expect(
        [...listed, ...SKILLS_SCENARIOS].filter((name) => !scenarios.has(name)),
        why(),
      ).toEqual([]);
      expect(
        failed.filter((name) => !expected.has(name)),
        why(),
      ).toEqual([]);
      // An expected failure that passes now is stale: take it off the list.
      const stale = [...expected].filter((name) => scenarios.has(name) && !failed.includes(name));
      expect(stale, "these pass now: remove them from expected-failures.yaml").toEqual([]);
      expect(transcripts.filter((t) => !t.includes("(exit 0)")).length, why()).toBe(0);
    },
    600_000,
  );

  it("has its results in the docs' table", async () => {
    expect([...found.keys()], "the runs above must pass first").toEqual(ERAS.map((e) => e.era));
    const rows = ERAS.map(({ era, label }) => {
      const { scenarios, failed } = found.get(era) as EraResult;
      return [label, String(scenarios.size), String(scenarios.size - failed.length), String(failed.length)];
    });
    for (const page of [path.join(REPO, "docs/contributing.md"), path.join(PACKAGE, "README.md")]) {
      const table = tableRows(await readFile(page, "utf8"), "Protocol era");
      expect(table, `${page}: | Protocol era | Scenarios run | Passed | Expected failures |`).toEqual(rows);
    }
  });
});

// --- internal ---

interface Served {
  url: string;
  log(): string;
  stop(): Promise<void>;
}

/**
 * `skillport serve --http` over conformance.manifest.json on a free loopback port. The manifest's one browser
 * origin is the server's own (the suite's DNS-rebinding scenario sends it as a valid localhost Origin), so the
 * copy served names the port picked; a port taken in between is picked again.
 */
async function serveFixture(dir: string): Promise<Served> {
  const manifest = JSON.parse(await readFile(path.join(PACKAGE, "conformance.manifest.json"), "utf8"));
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const file = path.join(dir, "conformance.manifest.json");
    await writeFile(
      file,
      JSON.stringify({
        ...manifest,
        $schema: undefined,
        skills: manifest.skills.map((s: { path: string }) => ({ ...s, path: path.join(PACKAGE, s.path) })),
        http: { ...manifest.http, port, allowedOrigins: [`http://127.0.0.1:${port}`] },
      }),
    );
    const child = spawn(process.execPath, [CLI, "serve", "--http", "--manifest", file], {
      cwd: dir,
      env: { ...process.env, SKILLPORT_LOG_LEVEL: "info" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let log = "";
    const listening = new Promise<string>((resolve, reject) => {
      child.stderr?.on("data", (chunk: Buffer) => {
        log += chunk.toString();
        const line = log.split("\n").find((l) => l.includes('"msg":"listening"'));
        if (line !== undefined) resolve(JSON.parse(line).url as string);
      });
      child.on("exit", (code) => reject(new Error(`skillport serve exited with ${code}:\n${log}`)));
    });
    try {
      const url = await listening;
      return { url, log: () => log, stop: () => stop(child) };
    } catch (error) {
      if (attempt >= 3 || !log.includes("already in use")) throw error;
    }
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.on("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.on("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

/** The conformance CLI on Node.js 22, its output kept (printed only when a test fails). */
function runner(args: string[]): Promise<{ code: number | null; output: string }> {
  return runCombined(NODE_22, [RUNNER, ...args], work);
}

function baseline(): string[] {
  return ["--expected-failures", EXPECTED_FAILURES];
}

/** The scenario names expected-failures.yaml lists (its `server:` entries). */
async function expectedFailures(): Promise<Set<string>> {
  const text = await readFile(EXPECTED_FAILURES, "utf8");
  return new Set([...text.matchAll(/^ {2}- ([a-z0-9/-]+)\s*$/gm)].map((m) => m[1] as string));
}

/** The server scenarios `conformance list` names for a selection (for a requirement set: scored or not). */
async function listedServerScenarios(selection: readonly string[]): Promise<string[]> {
  const { output } = await runner(["list", "--server", ...selection]);
  const names: string[] = [];
  let section = "";
  for (const line of output.split("\n")) {
    if (!line.startsWith(" ")) section = line;
    const entry = /^\s+- ([a-z0-9/-]+)(?: \[(.*)\])?$/.exec(line);
    if (entry === null) continue;
    const [, name, tag] = entry;
    const server = section.startsWith("Server scenarios") || tag === "server" || section.startsWith("Run and reported");
    if (server && tag !== "client") names.push(name as string);
  }
  return names;
}

/** What the runner wrote: each scenario's checks (`<out>/server-<scenario>-<timestamp>/checks.json`). */
async function resultsIn(dir: string): Promise<Map<string, Check[]>> {
  const scenarios = new Map<string, Check[]>();
  for (const entry of (await readdir(dir)).sort()) {
    const name = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry)?.[1];
    if (name === undefined) continue;
    const checks = JSON.parse(await readFile(path.join(dir, entry, "checks.json"), "utf8")) as Check[];
    scenarios.set(name, [...(scenarios.get(name) ?? []), ...checks]);
  }
  return scenarios;
}

function describeFailures(scenarios: Map<string, Check[]>, expected: Set<string>): string {
  const lines: string[] = [];
  for (const [name, checks] of scenarios) {
    for (const check of checks.filter((c) => c.status === "FAILURE")) {
      const tag = expected.has(name) ? " (expected)" : "";
      lines.push(`${name}${tag}: ${check.id}: ${(check.errorMessage ?? "").slice(0, 300)}`);
    }
  }
  return lines.length === 0 ? "no failing checks" : lines.join("\n");
}

/** The rows of the Markdown table whose first header cell is `first`, as trimmed cells (separator row left out). */
function tableRows(markdown: string, first: string): string[][] {
  const lines = markdown.split("\n");
  const start = lines.findIndex((l) => l.startsWith("|") && l.split("|")[1]?.trim() === first);
  if (start === -1) return [];
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(
      line
        .split("|")
        .slice(1, -1)
        .map((cell) => cell.trim().replaceAll("`", "")),
    );
  }
  return rows;
}

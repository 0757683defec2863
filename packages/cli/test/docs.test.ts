import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { loadManifest } from "@skillport/host";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServedHttp } from "./workspace.js";
import { CLI, connectStdio, REPO, runCli, serveHttp } from "./workspace.js";

// Every page of the docs site, run: the README, docs/**/*.md, SECURITY.md and bench/RESULTS.md. Every command their
// shell blocks and transcripts (`$ command`, then its output) show runs against the default manifest in one scratch
// copy, beside one served `skillport serve --http` (and one with a token), and its output is compared by shape:
// columns, keys, codes and numbers; not trace ids, times, ports, versions or paths. Markers just above a fence:
//   <!-- docs-test: not run (why) -->        the block is not run, for the reason given
//   <!-- docs-test: file name.json -->        the block is written into the scratch copy under that name first
//   <!-- docs-test: excerpt of some/file -->  the block's lines (`…` for lines left out) are in that scratch file
// Every relative link and anchor is checked too, as GitHub and the site resolve them.

/** The site's pages (docs/.vitepress/config.mts serves these). */
const PAGES = ["README.md", ...docsPages(), "SECURITY.md", "bench/RESULTS.md"];
const TEXT = new Map(PAGES.map((page) => [page, readFileSync(path.join(REPO, page), "utf8")]));
const blocks = PAGES.flatMap((page) => fencedBlocks(page, TEXT.get(page) as string));
const commands = blocks.flatMap(commandsOf);

/** Commands shown in blocks that are run, which this test leaves to others, and why. */
const NOT_RUN: readonly [RegExp, string][] = [
  [/^corepack enable$/, "sets up pnpm, which runs this test"],
  [/^pnpm install$/, "installs the workspace this test runs in"],
  [/^pnpm test$/, "runs this test"],
  [
    /^pnpm --filter @skillport\/skill-weather (build|test)$/,
    "builds and tests the scaffolded skill: the authoring flow's test",
  ],
  [/^pnpm changeset$/, "asks its questions on a terminal"],
  [/^pnpm add /, "installs from the registry; the workspace's tests use its packages from the workspace"],
  [
    /^pnpm exec skillport call weather_get_weather /,
    "calls the scaffolded skill once enabled: the authoring flow's test",
  ],
];

/** The blocks marked not run, page by page: kept short, each with its reason. */
const MARKED_NOT_RUN = [
  "docs/contributing.md: pnpm test runs the build and the lint, then every test, this one included; format rewrites the working tree",
  "docs/contributing.md: runs tests that pnpm test runs",
  "docs/contributing.md: a server for a browser; the build below builds the same pages, and pnpm test runs it",
  "docs/contributing.md: versions, packs and publishes the packages",
  "docs/deploying.md: needs Docker and a network to build the image",
  "docs/deploying.md: needs a Kubernetes cluster",
  "docs/deploying.md: needs Docker and a network to build the image",
  "docs/performance.md: each takes minutes and rewrites bench/RESULTS.md; a test checks the chart is what bench/chart.mjs draws from it",
];

/** What the pages write for the machine-specific parts of an output. */
const PLACEHOLDER_ROOT = "/path/to/skillport";
const DOCS_URL = "http://127.0.0.1:3333/mcp";
const DOCS_PUBLIC_URL = "https://skills.example.com/mcp";
const TOKEN = "docs-token-0123456789abcdef";

let scratch: string;
let plain: Served;
let authed: Served;

interface Served extends ServedHttp {
  urlValue: string;
  banner: string;
}

beforeAll(async () => {
  scratch = await makeScratch();
  const authedManifest = JSON.parse(await readFile(path.join(scratch, "skills.manifest.json"), "utf8"));
  authedManifest.http = { auth: { tokens: [{ name: "docs", token: { env: "DOCS_TOKEN" } }] } };
  await writeFile(path.join(scratch, "authed.manifest.json"), JSON.stringify(authedManifest, null, 2));
  for (const block of blocks.filter((b) => b.file !== undefined)) {
    await writeFile(path.join(scratch, block.file as string), `${block.text}\n`);
  }
  [plain, authed] = await Promise.all([
    serve(["--banner"]),
    serve(["--banner", "--manifest", "authed.manifest.json"], { DOCS_TOKEN: TOKEN }),
  ]);
});

afterAll(async () => {
  for (const served of [plain, authed]) if (served?.child.exitCode === null) served.child.kill("SIGKILL");
  if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
});

describe("the pages' shell blocks", () => {
  it("are all run here, or marked not run, and the set left out stays small", () => {
    const marked = blocks.filter((b) => b.notRun !== undefined);
    expect(marked.map((b) => `${b.page}: ${b.notRun}`)).toEqual(MARKED_NOT_RUN);
    const unknown = commands.filter((c) => runnerOf(c) === undefined).map((c) => `${c.page}:${c.line}: ${c.text}`);
    expect(unknown, "add a runner to docs.test.ts, or mark the block <!-- docs-test: not run (why) -->").toEqual([]);
    expect(commands.length).toBeGreaterThan(30);
  });

  it.each(commands.filter((c) => runnerOf(c) !== undefined && !notRun(c)))("$page:$line $text", async (command) => {
    await runnerOf(command)?.(command);
  });

  it.each(blocks.filter((b) => b.excerptOf !== undefined))("$page:$line is an excerpt of $excerptOf", async (block) => {
    const file = await readFile(path.join(scratch, block.excerptOf as string), "utf8");
    matchText(block.text.split("\n"), file, { exact: true });
  });
});

describe("the pages' other examples", () => {
  it("the 'listening' log line", async () => {
    const shown = inlineJson(/`(\{"level":30,…[^`]*"msg":"listening"\})`/);
    const line = logLines(plain.stderr()).find((l) => l.msg === "listening");
    expect(line).toBeDefined();
    matchShape(shown, { ...line, url: String(line?.url).replace(/:\d+\//, ":3333/") });
  });

  it("the /readyz answer", async () => {
    const shown = inlineJson(/`200 (\{"status":"ready"[^`]*\})`/);
    const answer = await fetch(new URL("/readyz", plain.urlValue));
    expect(answer.status).toBe(200);
    // "…" on the page stands for a replica id (host name, process id, random suffix): the same one twice here.
    const body = (await answer.json()) as { state: { replica: string; replicas: string[] } };
    expect(body.state.replicas).toEqual([body.state.replica]);
    expect({ ...body, state: { ...body.state, replica: "…", replicas: ["…"] } }).toEqual(shown);
  });

  it("the audit line", async () => {
    const block = blocks.find((b) => b.lang === "json" && b.text.includes('"kind":"audit"'));
    const shown = JSON.parse(block?.text ?? "{}") as Record<string, unknown>;
    // `skillport call` prints its audit line at the info level (The CLI's page says so beside the log levels).
    const run = await runCli(["call", "notes_search_notes", JSON.stringify({ keyword: "agent" })], scratch, {
      SKILLPORT_LOG_LEVEL: "info",
    });
    expect(run.code).toBe(0);
    const audit = logLines(run.stderr).find((l) => l.kind === "audit");
    expect(Object.keys(audit ?? {}).sort()).toEqual(Object.keys(shown).sort());
    for (const key of ["level", "kind", "tool", "instance", "risk", "brief", "outcome", "msg"]) {
      expect(audit?.[key], key).toEqual(shown[key]);
    }
    expect(maskVersions(String(audit?.skill))).toBe(maskVersions(String(shown.skill)));
  });

  it("the upstream servers example loads as written, its comments included", async () => {
    const block = blocks.find((b) => b.page === "docs/upstream-servers.md" && b.file === "upstream.manifest.json");
    expect(block?.text).toMatch(/^\s*\/\/ /m);
    const manifest = await loadManifest(path.join(scratch, "upstream.manifest.json"));
    expect(manifest.servers.map((s) => s.mcp)).toEqual(["fs", "gh", "remote"]);
  });

  it("the sentence on .ci/run names what the script runs", async () => {
    const sentence = /`\.ci\/run` runs the README's test command[\s\S]*?line\./.exec(allText())?.[0] ?? "";
    const script = await readFile(path.join(REPO, ".ci/run"), "utf8");
    const named = [...sentence.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string).filter((c) => c !== ".ci/run");
    expect(named).toEqual([
      "corepack enable",
      "pnpm install",
      "--frozen-lockfile",
      "pnpm test",
      "apt-get",
      "N passed, N failed, N skipped",
    ]);
    const summary = await readFile(path.join(REPO, ".ci/test-summary.mjs"), "utf8");
    const pkg = await readFile(path.join(REPO, "package.json"), "utf8");
    for (const command of named) {
      if (command === "N passed, N failed, N skipped") {
        expect(pkg).toContain("node .ci/test-summary.mjs");
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the summary's own template, read as text
        expect(summary).toContain("passed, ${total.failed} failed, ${total.skipped} skipped");
      } else expect(script, command).toContain(command);
    }
  });

  it("every client setup is one pnpm start's banner prints, and the banner prints none the pages lack", () => {
    const shown = blocks.filter((b) => b.lang === "json").flatMap((b) => clientSetups(b.text));
    const printed = [...clientSetups(plain.banner), ...clientSetups(authed.banner)];
    expect(shown.length).toBeGreaterThanOrEqual(6);
    for (const setup of shown) {
      const auth = JSON.stringify(setup.value).includes("Bearer");
      const same = printed.find((p) => p.kind === setup.kind && JSON.stringify(p.value).includes("Bearer") === auth);
      expect(same?.value, `the ${setup.kind} setup shown`).toEqual(setup.value);
    }
    const key = (s: { kind: string; value: unknown }) => `${s.kind}${JSON.stringify(s.value).includes("Bearer")}`;
    expect(new Set(shown.map(key))).toEqual(new Set(printed.map(key)));
  });
});

describe("the README", () => {
  const readme = TEXT.get("README.md") as string;

  it("is read in ten minutes: at most 250 lines", () => {
    expect(readme.split("\n").length).toBeLessThanOrEqual(250);
  });

  it("opens with the two commands a newcomer needs: pnpm start, and the one CI runs", async () => {
    const first = blocks.find((b) => b.page === "README.md");
    expect(first?.line).toBeLessThanOrEqual(3);
    const lines = (first?.text ?? "").split("\n").map((l) => withoutComment(l).trim());
    expect(lines).toEqual([
      "corepack enable && pnpm install && pnpm start",
      "corepack enable && pnpm install && pnpm test",
    ]);
    const script = await readFile(path.join(REPO, ".ci/run"), "utf8");
    const steps = script.split("\n").filter((l) => /^(corepack|pnpm) /.test(l));
    expect(steps).toEqual(["corepack enable", "pnpm install --frozen-lockfile", "pnpm test"]);
  });
  it("step 5, and Writing skills' step 5, name the first changeset skillport new writes", async () => {
    const step = /^5\. \*\*Release\*\*[\s\S]*?(?=\n\n)/m.exec(readme)?.[0] ?? "";
    const page =
      /^## 5\. Changeset[^\n]*\n\n[\s\S]*?(?=\n\n)/m.exec(TEXT.get("docs/writing-skills.md") as string)?.[0] ?? "";
    const named = /`\.changeset\/([^`]+)`/.exec(step)?.[1];
    expect(step).toContain("skillport new");
    expect(page).toContain("skillport new");
    expect(named).toBeDefined();
    expect(page).toContain(`\`.changeset/${named}\``);
    const dir = await mkdtemp(path.join(os.tmpdir(), "skillport-docs-new-"));
    try {
      await mkdir(path.join(dir, ".changeset"));
      await writeFile(path.join(dir, "skills.manifest.json"), '{ "skills": [] }\n');
      expect((await runCli(["new", "weather"], dir)).code).toBe(0);
      expect(existsSync(path.join(dir, ".changeset", named as string))).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("the pages' links", () => {
  const links = PAGES.flatMap((page) => linksOf(page, TEXT.get(page) as string));

  it("are many", () => {
    expect(links.length).toBeGreaterThan(80);
  });

  it.each(links.filter((l) => !/^[a-z]+:/i.test(l.target)))("$page → $target", ({ page, target }) => {
    const [file = "", anchor] = target.split("#");
    const resolved = file === "" ? page : path.posix.normalize(path.posix.join(path.posix.dirname(page), file));
    const image = /\.(svg|png)$/.test(resolved);
    if (image) {
      expect(resolved.startsWith("docs/"), "an image the site serves lives under docs/").toBe(true);
      expect(existsSync(path.join(REPO, resolved)), `${resolved} exists`).toBe(true);
      return;
    }
    expect(PAGES, `${target} is a page of the site (write other repository paths as code, not links)`).toContain(
      resolved,
    );
    if (anchor !== undefined)
      expect(anchorsOf(TEXT.get(resolved) as string), `#${anchor} in ${resolved}`).toContain(anchor);
  });
});

// --- runners ---

type Runner = (command: Command) => Promise<void>;

function notRun(command: Command): boolean {
  return NOT_RUN.some(([pattern]) => pattern.test(command.text));
}

function runnerOf(command: Command): Runner | undefined {
  const { text } = command;
  if (notRun(command)) return async () => undefined;
  if (text === "pnpm start") return pnpmStart;
  if (text.startsWith("pnpm exec skillport serve --stdio")) return serveStdio;
  if (text.startsWith("pnpm exec skillport serve --http")) return serveHttpCommand;
  if (text.startsWith("pnpm exec skillport dev ")) return devCommand;
  if (text.startsWith("pnpm exec skillport new ")) return skillportNew;
  if (text.startsWith("pnpm exec skillport ")) return skillport;
  if (/^(printf [^|]*\| )?skillport credentials /.test(text)) return credentialsCommand;
  if (text.startsWith("claude mcp add ")) return claudeMcpAdd;
  if (text.startsWith("curl ")) return curl;
  return undefined;
}

async function pnpmStart(command: Command): Promise<void> {
  const pkg = JSON.parse(await readFile(path.join(REPO, "package.json"), "utf8")) as { scripts: { start: string } };
  expect(pkg.scripts.start).toMatch(/&& skillport serve --http --banner$/);
  // The same command, on a free port, in the scratch copy.
  expect(plain.banner).toMatch(/^Skillport is serving 10 tools from .* over Streamable HTTP\.$/m);
  expect(plain.banner).toContain(`MCP endpoint  ${plain.urlValue}`);
  // The first run shows no warning the user cannot act on: the default manifest's names are ones model APIs take.
  expect(plain.banner).not.toContain("Tool names:");
  if (command.output.length > 0) matchText(command.output, asShown(plain.stderr(), plain));
}

async function serveStdio(command: Command): Promise<void> {
  const args = words(command.text).slice(3);
  const manifest = args[args.indexOf("--manifest") + 1] ?? "skills.manifest.json";
  const { client, ready } = await connectStdio(path.resolve(scratch, manifest), scratch);
  try {
    await ready;
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("notes_search_notes");
  } finally {
    await client.close();
  }
}

async function serveHttpCommand(command: Command): Promise<void> {
  const args = words(command.text).slice(5);
  // On a free port (serveHttp passes --port 0 first; a port the page passes comes after it and wins).
  const served = serveHttp(args, scratch);
  try {
    const url = await served.url;
    const at = args.indexOf("--path");
    expect(new URL(url).pathname).toBe(at === -1 ? "/mcp" : args[at + 1]);
    expect((await fetch(new URL("/readyz", url))).status).toBe(200);
    expect(served.stderr().includes("Skillport is serving")).toBe(args.includes("--banner"));
  } finally {
    served.child.kill("SIGTERM");
    await served.exit;
  }
}

/** `skillport dev` serves as serve does, over stdio or on a free port, and says what it watches. */
async function devCommand(command: Command): Promise<void> {
  const args = words(command.text).slice(4);
  const watching = (text: string) => text.includes("[skillport] dev: watching skills.manifest.json");
  if (args.includes("--http")) {
    const served = serveHttp(
      args.filter((a) => a !== "--http"),
      scratch,
      {},
      "dev",
    );
    try {
      expect((await fetch(new URL("/readyz", await served.url))).status).toBe(200);
      await served.stderrUntil(watching);
    } finally {
      served.child.kill("SIGTERM");
      await served.exit;
    }
    return;
  }
  const at = args.indexOf("--manifest");
  const manifest = at === -1 ? "skills.manifest.json" : (args[at + 1] as string);
  const { client, ready, stderrUntil } = await connectStdio(path.resolve(scratch, manifest), scratch, {
    command: "dev",
  });
  try {
    await ready;
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("notes_search_notes");
    await stderrUntil(watching);
  } finally {
    await client.close();
  }
}

async function skillport(command: Command): Promise<void> {
  const args = words(command.text).slice(3);
  const run = await runCli(args, scratch);
  const shown = command.output.join("\n");
  const fails = /"ok": false/.test(shown) || /^✖/m.test(shown) || /^\[skillport\] cannot /m.test(shown);
  expect(run.code, `${command.text}\n${run.stdout}\n${run.stderr}`).toBe(fails ? 1 : 0);
  if (command.output.length === 0) return;
  // What the terminal shows: the results on stdout, or, when there are none, the message on stderr.
  const printed = run.stdout.trim() === "" ? run.stderr : run.stdout;
  const actual = printed.split(scratch).join(PLACEHOLDER_ROOT).trim();
  if (shown.trimStart().startsWith("{")) matchShape(elidedJson(shown), JSON.parse(actual));
  else matchText(command.output, actual);
}

/** `skillport new` scaffolds once in the scratch copy; a page showing the same command again is the same step. */
const scaffolded = new Set<string>();
async function skillportNew(command: Command): Promise<void> {
  if (scaffolded.has(command.text)) return;
  await skillport(command);
  scaffolded.add(command.text);
}

/**
 * `skillport credentials`, as a page shows it, in a folder of its own whose manifest has per-caller slots (`gh.token`,
 * a server's `tickets.token`) and a file store, with the variables and files the pages name; a page's commands run
 * in order (set before list and remove).
 */
let credentialsDir: string | undefined;
async function credentialsCommand(command: Command): Promise<void> {
  if (credentialsDir === undefined) {
    credentialsDir = path.join(scratch, "credentials");
    await mkdir(credentialsDir);
    await writeFile(
      path.join(credentialsDir, "skills.manifest.json"),
      JSON.stringify({
        skills: [
          { path: path.join(REPO, "skills/skill-github"), mcp: "gh", credentials: { token: { perCaller: true } } },
        ],
        servers: [{ mcp: "tickets", url: "https://tickets.example.com/mcp", auth: { perCaller: "token" } }],
        credentials: { keys: [{ id: "1", env: "DOCS_CREDENTIALS_KEY" }], store: { file: "./.credentials" } },
      }),
    );
    for (const file of ["ci-token.txt", "alice-token.txt"])
      await writeFile(path.join(credentialsDir, file), `${file}-0123\n`);
  }
  const env = {
    ...process.env,
    SKILLPORT_LOG_LEVEL: "warn",
    DOCS_CREDENTIALS_KEY: "0".repeat(64),
    BOB_GITHUB_TOKEN: "bob-github-token-0123",
    TOKEN: "ci-token-0123",
  };
  const script = `skillport() { "${process.execPath}" "${CLI}" "$@"; }; ${command.text}`;
  // What a terminal would have the operator type, for a command that reads stdin (a pipe or `<` on the page wins).
  const run = await new Promise<{ code: number; out: string }>((resolve) => {
    const child = execFile("sh", ["-c", script], { cwd: credentialsDir, env }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : Number(error.code ?? 1), out: `${stdout}${stderr}` }),
    );
    child.stdin?.end("typed-token-0123\n");
  });
  expect(run.code, `${command.text}\n${run.out}`).toBe(0);
}

async function claudeMcpAdd(command: Command): Promise<void> {
  const served = command.text.includes("--header") ? authed : plain;
  const line = command.text.replace(DOCS_PUBLIC_URL, served.urlValue).replace(DOCS_URL, served.urlValue);
  expect(served.banner.split("\n").map((l) => l.trim())).toContain(line);
}

async function curl(command: Command): Promise<void> {
  const [request = "", ...pipe] = command.text.split(" | ");
  const line = request.replace(DOCS_URL, plain.urlValue);
  // The tools/list request is the one the banner prints, word for word.
  if (request.includes('"method":"tools/list"')) {
    expect(plain.banner.split("\n").map((l) => l.trim())).toContain(line);
  }
  const jq = pipe.join(" | ");
  const hasJq = jq !== "" && (await sh("command -v jq")).code === 0;
  const run = await sh(hasJq ? `${line} | ${jq}` : line);
  expect(run.code, run.stderr).toBe(0);
  // Without jq on the machine, its filter is read here: `jq -r <path>`, a path of keys and `[]`.
  const output = hasJq || jq === "" ? run.stdout : jqPath(jq, JSON.parse(run.stdout));
  if (command.output.length > 0) matchText(command.output, output.trim());
  else if (request.includes('"method":"tools/list"')) expect(output.trim()).toBe((await listNames()).join("\n"));
  else expect(() => JSON.parse(output)).not.toThrow();
}

// --- the scratch copy and its servers ---

/**
 * The default manifest, its lock and the examples it serves, in a fresh folder, resolving packages from the
 * repository. The pages show the bundled composition: a `path` entry a user added (`skillport new`) is left out.
 */
async function makeScratch(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "skillport-docs-"));
  await cp(path.join(REPO, "examples"), path.join(dir, "examples"), { recursive: true });
  await symlink(path.join(REPO, "node_modules"), path.join(dir, "node_modules"), "dir");
  const manifest = JSON.parse(await readFile(path.join(REPO, "skills.manifest.json"), "utf8")) as {
    skills: { path?: string }[];
  };
  manifest.skills = manifest.skills.filter((entry) => entry.path === undefined);
  await writeFile(path.join(dir, "skills.manifest.json"), JSON.stringify(manifest, null, 2));
  if (existsSync(path.join(REPO, "skills.lock.json"))) {
    await cp(path.join(REPO, "skills.lock.json"), path.join(dir, "skills.lock.json"));
  }
  await mkdir(path.join(dir, "skills"));
  return dir;
}

async function serve(args: string[], env: Record<string, string> = {}): Promise<Served> {
  const served = serveHttp(args, scratch, env);
  const urlValue = await served.url;
  // The banner is written right after the listening line; wait for its last setup.
  await served.stderrUntil((text) => /with no server to keep running:[\s\S]*\n\}\n[\s\S]*\n\}\n/.test(text));
  const banner = served.stderr().slice(served.stderr().indexOf("\nSkillport is serving") + 1);
  return Object.assign(served, { urlValue, banner: banner.split(scratch).join(PLACEHOLDER_ROOT) });
}

/** A served process's stderr as the pages show it: the scratch folder and the port as the docs write them. */
function asShown(stderr: string, served: Served): string {
  return stderr
    .split(scratch)
    .join(PLACEHOLDER_ROOT)
    .split(new URL(served.urlValue).origin)
    .join(new URL(DOCS_URL).origin);
}

async function listNames(): Promise<string[]> {
  const run = await runCli(["list", "--json"], scratch);
  return (JSON.parse(run.stdout) as { name: string }[]).map((r) => r.name);
}

function sh(script: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile("bash", ["-c", script], { cwd: scratch }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr }),
    );
  });
}

/** `jq -r .a.b` or `jq -r '.a[].b'`: the values at a path of keys and `[]`, one per line. */
function jqPath(filter: string, value: unknown): string {
  const expression = words(filter).at(-1) ?? ".";
  expect(words(filter).slice(0, -1), "a jq filter this test can read without jq").toEqual(["jq", "-r"]);
  let values: unknown[] = [value];
  for (const step of expression.match(/\.[A-Za-z_][A-Za-z0-9_]*|\[\]/g) ?? []) {
    values =
      step === "[]"
        ? values.flatMap((v) => (Array.isArray(v) ? v : []))
        : values.map((v) => (v as Record<string, unknown>)?.[step.slice(1)]);
  }
  return `${values.map((v) => (typeof v === "string" ? v : JSON.stringify(v))).join("\n")}\n`;
}

// --- reading the pages ---

/** docs/**\/*.md but the site's own folder, in the order the sidebar reads them (alphabetical is close enough). */
function docsPages(): string[] {
  const dir = path.join(REPO, "docs");
  return (readdirSync(dir, { recursive: true }) as string[])
    .map((file) => file.split(path.sep).join("/"))
    .filter((file) => file.endsWith(".md") && !file.startsWith(".vitepress/"))
    .sort()
    .map((file) => `docs/${file}`);
}

function allText(): string {
  return [...TEXT.values()].join("\n");
}

interface Block {
  page: string;
  lang: string;
  line: number;
  text: string;
  /** Why the block is not run, from `<!-- docs-test: not run (why) -->` just above it. */
  notRun: string | undefined;
  /** The scratch file the block is written to, from `<!-- docs-test: file name -->`. */
  file: string | undefined;
  /** The scratch file the block is an excerpt of, from `<!-- docs-test: excerpt of path -->`. */
  excerptOf: string | undefined;
}

interface Command {
  page: string;
  line: number;
  text: string;
  /** The output a transcript block shows after `$ command`, line by line. */
  output: string[];
}

function fencedBlocks(page: string, markdown: string): Block[] {
  const lines = markdown.split("\n");
  const found: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(\w*)\s*$/.exec(lines[i] as string);
    if (open === null) continue;
    const indent = open[1]?.length ?? 0;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !/^\s*```\s*$/.test(lines[j] as string); j++)
      body.push((lines[j] as string).slice(indent));
    let above = i - 1;
    while (above >= 0 && (lines[above] as string).trim() === "") above--;
    const marker = /^<!-- docs-test: (.+) -->$/.exec((lines[above] ?? "").trim())?.[1] ?? "";
    found.push({
      page,
      lang: open[2] ?? "",
      line: i + 1,
      text: body.join("\n"),
      notRun: /^not run \((.+)\)$/.exec(marker)?.[1],
      file: /^file (\S+)$/.exec(marker)?.[1],
      excerptOf: /^excerpt of (\S+)$/.exec(marker)?.[1],
    });
    i = j;
  }
  return found;
}

/** The commands of a shell block, or of a text block written as a transcript (`$ command`, then its output). */
function commandsOf(block: Block): Command[] {
  if (block.notRun !== undefined) return [];
  const lines = block.text.split("\n");
  const transcript = lines.some((l) => l.startsWith("$ "));
  if (block.lang !== "sh" && !transcript) return [];
  const found: Command[] = [];
  for (let i = 0; i < lines.length; i++) {
    let text = lines[i] as string;
    if (transcript && !text.startsWith("$ ")) continue;
    if (text.trim() === "") continue;
    const line = block.line + 1 + i;
    while (text.endsWith("\\") && i + 1 < lines.length)
      text = `${text.slice(0, -1).trimEnd()} ${(lines[++i] as string).trim()}`;
    text = withoutComment(transcript ? text.slice(2) : text).trim();
    if (text === "") continue;
    const output: string[] = [];
    while (transcript && i + 1 < lines.length && !(lines[i + 1] as string).startsWith("$ "))
      output.push(lines[++i] as string);
    while (output.length > 0 && (output.at(-1) as string).trim() === "") output.pop();
    for (const part of text.split(" && ")) found.push({ page: block.page, line, text: part.trim(), output });
  }
  return found;
}

function withoutComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === "#" && /\s/.test(line[i - 1] ?? " ")) return line.slice(0, i);
  }
  return line;
}

/** Shell words: whitespace-separated, with single and double quotes. */
function words(text: string): string[] {
  const out: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  for (const c of text) {
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
      else word = (word ?? "") + c;
    } else if (c === "'" || c === '"') {
      quote = c;
      word ??= "";
    } else if (/\s/.test(c)) {
      if (word !== undefined) out.push(word);
      word = undefined;
    } else word = (word ?? "") + c;
  }
  if (word !== undefined) out.push(word);
  return out;
}

function inlineJson(pattern: RegExp): unknown {
  const match = pattern.exec(allText());
  expect(match, `a page shows ${pattern}`).not.toBeNull();
  return elidedJson(match?.[1] ?? "{}");
}

/** The Markdown links of a page (outside code), with where they point. */
function linksOf(page: string, markdown: string): { page: string; target: string }[] {
  const prose = markdown.replace(/^\s*```[\s\S]*?^\s*```\s*$/gm, "").replace(/`[^`\n]*`/g, "");
  return [...prose.matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => ({ page, target: m[1] as string }));
}

/** The anchors GitHub gives a page's headings (the site is configured alike): `#a-heading`, `#a-heading-1`, … */
function anchorsOf(markdown: string): string[] {
  const prose = markdown.replace(/^\s*```[\s\S]*?^\s*```\s*$/gm, "");
  const seen = new Map<string, number>();
  return [...prose.matchAll(/^#{1,6} (.+)$/gm)].map((m) => {
    const slug = (m[1] as string)
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
      .replace(/ /g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    return count === 0 ? slug : `${slug}-${count}`;
  });
}

// --- comparing shapes ---

/** JSON as a page writes it, with `…` for what it leaves out: `[ … ]` and `{ … }` match anything. */
function elidedJson(text: string): unknown {
  const json = text
    .replace(/\{\s*…\s*\}|\[\s*…\s*\]/g, '"…"')
    .replace(/,\s*…\s*(?=[}\]])/g, "")
    .replace(/(?<=[{[])\s*…\s*,/g, "")
    .replace(/,\s*…\s*,/g, ",");
  return JSON.parse(json);
}

/** `shown` as the page has it matches `actual`: every key it shows, `"…"` for anything, `…` in a string for any text. */
function matchShape(shown: unknown, actual: unknown, at = ""): void {
  if (shown === "…") return;
  if (typeof shown === "string" && shown.includes("…")) {
    expect(typeof actual, at).toBe("string");
    const parts = shown.split("…");
    let from = 0;
    for (const [i, part] of parts.entries()) {
      const found = i === 0 ? ((actual as string).startsWith(part) ? 0 : -1) : (actual as string).indexOf(part, from);
      expect(found, `${at}: ${JSON.stringify(actual)} should read as ${JSON.stringify(shown)}`).toBeGreaterThanOrEqual(
        0,
      );
      from = found + part.length;
    }
    return;
  }
  if (typeof shown === "object" && shown !== null && !Array.isArray(shown)) {
    expect(typeof actual, at).toBe("object");
    for (const [key, value] of Object.entries(shown)) {
      expect(actual, `${at}/${key}`).toHaveProperty([key]);
      matchShape(value, (actual as Record<string, unknown>)[key], `${at}/${key}`);
    }
    return;
  }
  if (Array.isArray(shown)) {
    expect(Array.isArray(actual) ? actual.length : -1, at).toBe(shown.length);
    for (const [i, value] of shown.entries()) matchShape(value, (actual as unknown[])[i], `${at}/${i}`);
    return;
  }
  expect(actual, at).toEqual(shown);
}

/**
 * A text transcript against the real output: lines in order, `…` alone for lines left out, `…` in a line for any
 * text. Runs of spaces and dashes (column widths) and versions are shape; every other character, numbers included,
 * must be as shown. `exact` compares the lines as they are.
 */
function matchText(shown: string[], actual: string, { exact = false } = {}): void {
  const normal = (line: string) =>
    exact ? line : maskVersions(line).replace(/-{2,}/g, "--").replace(/\s+/g, " ").trim();
  const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const pattern = shown
    .map((line) =>
      line.trim() === "…" ? "(?:[^\\n]*\\n)*?" : `${normal(line).split("…").map(literal).join("[^\\n]*")}\\n`,
    )
    .join("");
  const text = `${actual.split("\n").map(normal).join("\n")}\n`;
  const anywhere = exact ? "(?:[^\\n]*\\n)*?" : "";
  expect(text, "the output, as the page shows it").toMatch(new RegExp(`^${anywhere}${pattern}${anywhere}$`));
}

function maskVersions(text: string): string {
  return text.replace(/@\d+\.\d+\.\d+(?:-[\w.]+)?/g, "@x.y.z");
}

function logLines(stderr: string): Record<string, unknown>[] {
  return stderr
    .split("\n")
    .filter((line) => line.startsWith('{"level"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The client setups in a text (a page's block or a banner): each JSON object with one `skillport` server, by kind. */
function clientSetups(text: string): { kind: string; value: unknown }[] {
  const found: { kind: string; value: unknown }[] = [];
  for (const match of text.matchAll(/^\{\n[\s\S]*?\n\}$/gm)) {
    const value = JSON.parse(match[0]) as {
      servers?: { skillport?: { type?: string } };
      mcpServers?: { skillport?: { url?: string; command?: string } };
    };
    const kind = value.servers?.skillport
      ? `VS Code over ${value.servers.skillport.type}`
      : value.mcpServers?.skillport?.url !== undefined
        ? "Cursor over http"
        : value.mcpServers?.skillport?.command !== undefined
          ? "Claude Desktop or Cursor over stdio"
          : undefined;
    if (kind !== undefined) found.push({ kind, value: normalSetup(value) });
  }
  return found;
}

/** One spelling of what differs from machine to machine: the node binary, the checkout's folder, the URL. */
function normalSetup(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, (key, v) => {
      if (key === "command" && typeof v === "string") return path.basename(v);
      if (key === "url" && typeof v === "string") return "URL";
      if (typeof v === "string" && v.endsWith("/packages/cli/bin/skillport.js"))
        return `${PLACEHOLDER_ROOT}/packages/cli/bin/skillport.js`;
      return v;
    }),
  );
}

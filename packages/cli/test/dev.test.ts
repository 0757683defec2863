// `skillport dev` in a child process, with a real SDK client over stdio and over loopback HTTP: a skill edited on disk
// is swapped in without dropping the client, which hears notifications/tools/list_changed; a broken skill or
// manifest keeps the last good tools; a call in flight finishes on the code it started with. Every wait is on an
// event (a notification, a line on dev's stderr, a progress notification), never on a clock.
import { execFileSync } from "node:child_process";
import { mkdir, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterEach, beforeEach, describe, expect, it, onTestFailed, onTestFinished } from "vitest";
import type { Workspace } from "./workspace.js";
import { connectAs, connectStdio, makeWorkspace, REPO, serveHttp } from "./workspace.js";

const CORE = pathToFileURL(path.join(REPO, "packages/core/dist/index.js")).href;

let saves = 0;

/**
 * Saves a file as many editors do, whole in one step: written beside the workspace's watched files, then renamed into
 * place. A file written in place is seen empty for a moment, which a loaded machine can stretch past dev's settling.
 */
async function save(ws: Workspace, file: string, text: string): Promise<void> {
  const temporary = path.join(ws.dir, `.save-${process.pid}-${saves++}`);
  await writeFile(temporary, text);
  await rename(temporary, file);
}

/** What the test skill's entry says: its description and which tools it has. */
interface SkillText {
  description?: string;
  /** Whether it has the `farewell` tool. @default true */
  farewell?: boolean;
  /** A required `loud` argument to greet. @default false */
  loud?: boolean;
}

/** What the skill's second file says: the tools' answer, whether `hold` waits for the test, and whether it parses. */
interface AnswerText {
  answer: string;
  /** Whether `hold` waits for the test's FIFO before answering. @default true */
  holds?: boolean;
  /** Not JavaScript. @default false */
  broken?: boolean;
}

/** A plain-JS skill with no build step: its entry, which takes its answers from ./answer.js. */
function skillSource(text: SkillText, fifo: string): string {
  const { description = "Say hello.", farewell = true, loud = false } = text;
  const greetInput = loud
    ? `{ type: "object", properties: { loud: { type: "boolean" } }, required: ["loud"], additionalProperties: false }`
    : `{ type: "object", properties: {}, additionalProperties: false }`;
  return `import { readFile } from "node:fs/promises";
import { defineSkill, defineTool } from ${JSON.stringify(CORE)};
import { ANSWER, HOLDS } from "./answer.js";
export const register = defineSkill({
  name: "hello",
  version: "1.0.0",
  tools: [
    defineTool({ name: "greet", title: "Greet", description: ${JSON.stringify(description)}, input: ${greetInput},
      risk: "read_only", run: async () => ({ answer: ANSWER }) }),
    defineTool({ name: "hold", title: "Hold", description: "Answers once the test lets it.",
      input: { type: "object", properties: {}, additionalProperties: false }, risk: "read_only",
      run: async (_p, ctx) => {
        if (!HOLDS) return { answer: ANSWER };
        ctx.progress(0, 1, "holding");
        return { answer: ANSWER + (await readFile(${JSON.stringify(fifo)}, "utf8")) };
      } }),
    ${farewell ? `defineTool({ name: "farewell", title: "Farewell", description: "Say goodbye.", input: { type: "object", properties: {} }, risk: "read_only", run: async () => ({ answer: "bye" }) }),` : ""}
  ],
});
`;
}

/**
 * The skill's second file, reached by a relative import: a changed file of a skill's own, not its entry, is
 * imported anew too.
 */
function answerSource({ answer, holds = true, broken = false }: AnswerText): string {
  return `export const ANSWER = ${JSON.stringify(answer)};\nexport const HOLDS = ${holds};\n${broken ? "export const = ;\n" : ""}`;
}

/** The workspace's skill folder and manifest, and how to rewrite the skill's files (one file a change). */
interface DevWorkspace {
  ws: Workspace;
  skill: string;
  fifo: string;
  writeSkill(text: SkillText): Promise<void>;
  writeAnswer(text: AnswerText): Promise<void>;
  writeManifest(manifest: unknown): Promise<void>;
}

/** The test's manifest: skill instances by mcp id, each a folder or anything else as its `mcp` would be written. */
function devManifest(instances: Record<string, string>, mcp?: unknown) {
  const skills = Object.entries(instances).map(([id, folder]) => ({ path: folder, mcp: mcp ?? id }));
  return { name: "dev-test", version: "1.0.0", skills };
}

async function devWorkspace(): Promise<DevWorkspace> {
  const ws = await makeWorkspace();
  const skill = path.join(ws.dir, "hello");
  await mkdir(skill);
  const fifo = path.join(ws.dir, "release.fifo");
  execFileSync("mkfifo", [fifo]);
  await writeFile(
    path.join(skill, "package.json"),
    JSON.stringify({ name: "skill-hello", version: "1.0.0", type: "module", main: "index.js" }),
  );
  const writeSkill = (text: SkillText) => save(ws, path.join(skill, "index.js"), skillSource(text, fifo));
  const writeAnswer = (text: AnswerText) => save(ws, path.join(skill, "answer.js"), answerSource(text));
  await writeSkill({});
  await writeAnswer({ answer: "old" });
  await ws.writeManifest(devManifest({ hello: "./hello" }));
  const writeManifest = (manifest: unknown) => save(ws, ws.manifest, JSON.stringify(manifest, null, 2));
  return { ws, skill, fifo, writeSkill, writeAnswer, writeManifest };
}

/** A client of a running `skillport dev`, what dev printed, and each tools/list_changed as it comes. */
interface Dev {
  client: Client;
  stderr(): string;
  /**
   * Resolves with what dev prints from now on once it holds `text`: made before the change it waits for, so that
   * nothing printed earlier answers it.
   */
  nextPrinted(text: string): Promise<string>;
  /** Resolves on the next notifications/tools/list_changed. */
  nextChange(): Promise<void>;
  close(): Promise<void>;
}

async function startDev(transport: "stdio" | "http", ws: Workspace): Promise<Dev> {
  let client: Client;
  let stderr: () => string;
  let until: (check: (text: string) => boolean) => Promise<void>;
  let stop: () => Promise<void>;
  if (transport === "stdio") {
    const started = await connectStdio(ws.manifest, ws.dir, { command: "dev" });
    await started.ready;
    ({ client } = started);
    stderr = started.stderr;
    until = started.stderrUntil;
    stop = () => started.client.close();
  } else {
    const served = serveHttp(["--manifest", ws.manifest], ws.dir, { SKILLPORT_LOG_LEVEL: "info" }, "dev");
    client = await connectAs(await served.url, undefined, "dev-test");
    stderr = served.stderr;
    until = served.stderrUntil;
    stop = async () => {
      await client.close();
      served.child.kill("SIGTERM");
      await served.exit;
    };
  }
  const waiters: (() => void)[] = [];
  client.setNotificationHandler("notifications/tools/list_changed", () => {
    for (const resolve of waiters.splice(0)) resolve();
  });
  await until((text) => text.includes("[skillport] dev: watching"));
  return {
    client,
    stderr,
    nextPrinted: (text) => {
      const from = stderr().length;
      return until((all) => all.slice(from).includes(text)).then(() => stderr().slice(from));
    },
    nextChange: () => new Promise<void>((resolve) => waiters.push(resolve)),
    close: stop,
  };
}

async function toolsOf(client: Client) {
  return (await client.listTools()).tools;
}

async function answerOf(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = await client.callTool({ name, arguments: args });
  return (result.structuredContent as { data?: { answer?: string } }).data?.answer;
}

describe.each(["stdio", "http"] as const)("skillport dev over %s", (transport) => {
  let dw: DevWorkspace;
  let dev: Dev;

  beforeEach(async () => {
    dw = await devWorkspace();
    dev = await startDev(transport, dw.ws);
    onTestFailed(() => console.error(`dev's stderr:\n${dev.stderr()}`));
  });
  afterEach(async () => {
    await dev?.close();
    await dw?.ws.dispose();
  });

  it("sends tools/list_changed within 2 s of a description saved on disk, and lists the new description", async () => {
    const changed = dev.nextChange();
    const saved = performance.now();
    await dw.writeSkill({ description: "Say hello, warmly." });
    await changed;
    expect(performance.now() - saved).toBeLessThan(2_000);
    const greet = (await toolsOf(dev.client)).find((t) => t.name === "hello.greet");
    expect(greet?.description).toBe("Say hello, warmly.");
  });

  it("keeps the previous tools on a syntax error, shows which skill and why, and swaps again once it is fixed", async () => {
    const failed = dev.nextPrinted("still serving the tools from before");
    await dw.writeAnswer({ answer: "broken", broken: true });
    const printed = await failed;
    expect(printed).toMatch(/skills\[0\] \(skill-hello\): importing \S*hello\/index\.js failed: Unexpected token '='/);
    expect(printed).not.toContain("?skillport-dev=");
    expect(await answerOf(dev.client, "hello.greet")).toBe("old");
    const changed = dev.nextChange();
    await dw.writeAnswer({ answer: "fixed" });
    await changed;
    expect(await answerOf(dev.client, "hello.greet")).toBe("fixed");
  });

  it("answers a removed tool as unknown after the swap, and prints what each change did to the tools", async () => {
    const changed = dev.nextChange();
    const printing = dev.nextPrinted("hello.farewell");
    await dw.writeSkill({ farewell: false, loud: true });
    await changed;
    await expect(dev.client.callTool({ name: "hello.farewell", arguments: {} })).rejects.toThrow(
      /Unknown tool|hello\.farewell/,
    );
    expect((await toolsOf(dev.client)).map((t) => t.name)).toEqual(["hello.greet", "hello.hold"]);
    const printed = await printing;
    expect(printed).toMatch(/2 changes to the tools \(2 breaking\)/);
    expect(printed).toMatch(/breaking +hello\.farewell +tool removed or renamed/);
    expect(printed).toMatch(/breaking +hello\.greet +input \/loud: required field added/);
  });

  it("finishes a call in flight during a swap on the code it started with", async () => {
    let holding: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      holding = resolve;
    });
    const call = dev.client.callTool({ name: "hello.hold", arguments: {} }, { onprogress: () => holding() });
    await held;
    const changed = dev.nextChange();
    await dw.writeAnswer({ answer: "new", holds: false });
    await changed;
    await writeFile(dw.fifo, "+released");
    const result = await call;
    expect((result.structuredContent as { data: { answer: string } }).data.answer).toBe("old+released");
    expect(await answerOf(dev.client, "hello.hold")).toBe("new");
  });

  it("adds a manifest's new skill instance, and keeps serving through an invalid manifest", async () => {
    const changed = dev.nextChange();
    const added = dev.nextPrinted("tool added");
    await dw.writeManifest(devManifest({ hello: "./hello", again: "./hello" }));
    await changed;
    expect((await toolsOf(dev.client)).map((t) => t.name)).toContain("again.greet");
    expect(await added).toMatch(/minor +again\.greet +tool added/);
    const failed = dev.nextPrinted("the new tools cannot be served");
    await dw.writeManifest(devManifest({ hello: "./hello" }, 7));
    expect(await failed).toMatch(/skills\[0\]\.mcp/);
    expect((await toolsOf(dev.client)).map((t) => t.name)).toContain("again.greet");
  });
});

describe.each(["stdio", "http"] as const)("skillport dev over %s, 2026-07-28 era", (transport) => {
  it("tells a client listening on subscriptions/listen that the tools changed", async () => {
    const dw = await devWorkspace();
    onTestFinished(() => dw.ws.dispose());
    const modern = { versionNegotiation: { mode: { pin: "2026-07-28" } } };
    let client: Client;
    let stderr: () => string;
    if (transport === "stdio") {
      const started = await connectStdio(dw.ws.manifest, dw.ws.dir, { command: "dev", client: modern });
      await started.ready;
      await started.stderrUntil((text) => text.includes("[skillport] dev: watching"));
      ({ client } = started);
      stderr = started.stderr;
    } else {
      const served = serveHttp(["--manifest", dw.ws.manifest], dw.ws.dir, { SKILLPORT_LOG_LEVEL: "info" }, "dev");
      onTestFinished(async () => {
        served.child.kill("SIGTERM");
        await served.exit;
      });
      client = new Client({ name: "dev-test", version: "0.0.0" }, modern);
      await client.connect(new StreamableHTTPClientTransport(new URL(await served.url)));
      await served.stderrUntil((text) => text.includes("[skillport] dev: watching"));
      stderr = served.stderr;
    }
    onTestFinished(() => client.close());
    onTestFailed(() => console.error(`dev's stderr:\n${stderr()}`));
    const changed = new Promise<void>((resolve) =>
      client.setNotificationHandler("notifications/tools/list_changed", () => resolve()),
    );
    const subscription = await client.listen({ toolsListChanged: true });
    expect(subscription.honoredFilter.toolsListChanged).toBe(true);
    await dw.writeSkill({ description: "Say hello, in the new era." });
    await changed;
    const greet = (await toolsOf(client)).find((t) => t.name === "hello.greet");
    expect(greet?.description).toBe("Say hello, in the new era.");
    await subscription.close();
  });
});

describe("skillport dev with a skill that builds", () => {
  it("runs the skill's build script and swaps in what it built; a failing build keeps the tools, with its output", async () => {
    const dw = await devWorkspace();
    const src = path.join(dw.skill, "src");
    await mkdir(src);
    await mkdir(path.join(dw.skill, "dist"));
    // The build copies src/ to dist/, and fails on a source that says so.
    await writeFile(
      path.join(dw.skill, "build.mjs"),
      `import { cpSync, readFileSync } from "node:fs";
if (readFileSync("src/answer.js", "utf8").includes("FAIL")) { console.error("build: src/answer.js asks to fail"); process.exit(3); }
cpSync("src", "dist", { recursive: true });
`,
    );
    await writeFile(
      path.join(dw.skill, "package.json"),
      JSON.stringify({
        name: "skill-hello",
        version: "1.0.0",
        type: "module",
        main: "dist/index.js",
        scripts: { build: "node build.mjs" },
      }),
    );
    for (const dir of [src, path.join(dw.skill, "dist")]) {
      await writeFile(path.join(dir, "index.js"), skillSource({}, dw.fifo));
      await writeFile(path.join(dir, "answer.js"), answerSource({ answer: "old" }));
    }
    const dev = await startDev("stdio", dw.ws);
    onTestFailed(() => console.error(`dev's stderr:\n${dev.stderr()}`));
    try {
      expect(dev.stderr()).toContain("hello (built with its build script)");
      const failed = dev.nextPrinted("the build of hello failed");
      await save(dw.ws, path.join(src, "answer.js"), `${answerSource({ answer: "built" })}// FAIL\n`);
      expect(await failed).toMatch(/npm run build exited with 3[\s\S]*\n {4}build: src\/answer\.js asks to fail/);
      expect(await answerOf(dev.client, "hello.greet")).toBe("old");
      const changed = dev.nextChange();
      const reloaded = dev.nextPrinted("reloaded");
      await save(dw.ws, path.join(src, "answer.js"), answerSource({ answer: "built" }));
      await changed;
      expect(await reloaded).toMatch(/hello changed: built \(npm run build in hello: \d+ ms\), reloaded in \d+ ms/);
      expect(await answerOf(dev.client, "hello.greet")).toBe("built");
    } finally {
      await dev.close();
      await dw.ws.dispose();
    }
  });
});

import { cp, mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Workspace } from "./workspace.js";
import { CLI, makeWorkspace, REPO, runCli } from "./workspace.js";

const LAZY = path.join(REPO, "packages/host/test/fixtures/skill-lazy");

type Envelope = { ok: boolean; message: string; error?: { code: string; field?: string } };

/**
 * ajv's compiler itself (what a schema compile needs): the host's bundled copy (dist/ajv.cjs) or, run otherwise,
 * ajv's own files; not the few runtime helpers the prebuilt manifest check uses.
 */
const AJV_COMPILER = /[\\/](?:host[\\/]dist[\\/]ajv\.cjs|ajv[\\/]dist[\\/](?:2020|core)\.js)$/;

/** The command's built files that hold commander (its bundle names each bundled module's path in a comment). */
async function commanderFiles(): Promise<string[]> {
  const dist = path.join(REPO, "packages/cli/dist");
  const files: string[] = [];
  for (const name of await readdir(dist)) {
    if (!name.endsWith(".js")) continue;
    if ((await readFile(path.join(dist, name), "utf8")).includes("node_modules/commander/")) files.push(name);
  }
  return files;
}

// What `serve --stdio --frozen-lock` leaves for later must still be checked when it comes: a tool's arguments on its
// first call, a lock that no longer matches what is installed.
describe("serve --stdio --frozen-lock: what start-up leaves for later", () => {
  let ws: Workspace;
  let manifest: string;
  let skillDir: string;
  let lockFile: string;
  let modulesLog: string;
  let reporter: string;
  let esmReporter: string;

  beforeAll(async () => {
    ws = await makeWorkspace();
    // A copy of the fixture skill the test can edit after locking; it finds @skillport/core through a link.
    skillDir = path.join(ws.dir, "skill-lazy");
    await cp(LAZY, skillDir, { recursive: true });
    await mkdir(path.join(ws.dir, "node_modules/@skillport"), { recursive: true });
    await symlink(path.join(REPO, "packages/core"), path.join(ws.dir, "node_modules/@skillport/core"), "dir");
    manifest = await ws.writeManifest({ skills: [{ path: "./skill-lazy", mcp: "lazy" }] });
    lockFile = path.join(ws.dir, "skills.lock.json");
    // Preloaded into the server: it logs every ES module as it loads (the command's own files are ES modules) and,
    // when the server exits, every CommonJS module it loaded (ajv is CommonJS).
    modulesLog = path.join(ws.dir, "modules.log");
    reporter = path.join(ws.dir, "report-modules.cjs");
    await writeFile(
      reporter,
      `process.on("exit", () => require("node:fs").appendFileSync(${JSON.stringify(modulesLog)}, Object.keys(require.cache).join("\\n")));\n`,
    );
    const hooks = `import { appendFileSync } from "node:fs";\nexport async function load(url, context, next) {\n  if (url.startsWith("file:")) appendFileSync(${JSON.stringify(modulesLog)}, url + "\\n");\n  return next(url, context);\n}\n`;
    esmReporter = path.join(ws.dir, "report-modules.mjs");
    await writeFile(
      esmReporter,
      `import { register } from "node:module";\nregister(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});\n`,
    );
    await lock();
  });
  afterAll(() => ws.dispose());

  async function lock() {
    const locked = await runCli(["lock", "--manifest", manifest], ws.dir);
    expect(locked.code, locked.stderr).toBe(0);
  }

  /** Serves with the lock, runs `session` with a connected SDK client, and answers the modules the server loaded. */
  async function served(session: (client: Client) => Promise<void>): Promise<string[]> {
    await writeFile(modulesLog, "");
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        "--require",
        reporter,
        "--import",
        esmReporter,
        CLI,
        "serve",
        "--stdio",
        "--frozen-lock",
        "--manifest",
        manifest,
      ],
      cwd: ws.dir,
      env: { ...(process.env as Record<string, string>), SKILLPORT_LOG_LEVEL: "silent" },
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const client = new Client({ name: "startup-lazy-test", version: "0.0.0" });
    try {
      await client.connect(transport);
      await session(client);
    } catch (error) {
      throw new Error(`${(error as Error).message}\nserver stderr:\n${stderr}`, { cause: error });
    } finally {
      // Resolves once the server has exited (stdin closed), which writes the list as it goes.
      await client.close();
    }
    return (await readFile(modulesLog, "utf8")).split("\n").filter(Boolean);
  }

  it("answers tools/list without loading ajv or commander, then compiles a tool's check on its first call", async () => {
    const listed = await served(async (client) => {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(["lazy.say_one", "lazy.say_two"]);
    });
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.filter((file) => AJV_COMPILER.test(file))).toEqual([]);
    expect(listed.some((file) => file.endsWith("/packages/cli/dist/cli.js"))).toBe(true);
    // `serve --stdio --frozen-lock --manifest …` is read without commander (the other command lines use it).
    const commander = await commanderFiles();
    expect(commander.length).toBeGreaterThan(0);
    expect(
      listed.filter((file) => /[\\/]commander[\\/]/.test(file) || commander.some((f) => file.endsWith(`/${f}`))),
    ).toEqual([]);

    // The first call of a tool no call has reached yet: an invalid argument is refused, with the field at fault.
    const called = await served(async (client) => {
      const refused = await client.callTool({ name: "lazy.say_two", arguments: { ms: "soon" } });
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent as Envelope).toMatchObject({
        ok: false,
        error: { code: "ARGUMENT_INVALID", field: "/ms" },
      });
      const tooLong = await client.callTool({ name: "lazy.say_one", arguments: { ms: 5000 } });
      expect(tooLong.structuredContent as Envelope).toMatchObject({
        ok: false,
        error: { code: "ARGUMENT_INVALID", field: "/ms" },
      });
      const fine = await client.callTool({ name: "lazy.say_one", arguments: { ms: 0 } });
      expect(fine.structuredContent).toMatchObject({ ok: true, data: { said: "one" } });
    });
    expect(called.filter((file) => AJV_COMPILER.test(file)).length).toBeGreaterThan(0);
  });

  it("refuses to start when the installed skill's version changed after locking", async () => {
    const pkgFile = path.join(skillDir, "package.json");
    const original = await readFile(pkgFile, "utf8");
    try {
      await writeFile(pkgFile, original.replace('"version": "3.1.0"', '"version": "3.2.0"'));
      const frozen = await runCli(["serve", "--stdio", "--frozen-lock", "--manifest", manifest], ws.dir);
      expect(frozen.code).toBe(1);
      expect(frozen.stderr).toContain("skills[0] (fixture-skill-lazy) was locked at 3.1.0 and 3.2.0 is installed");
    } finally {
      await writeFile(pkgFile, original);
    }
  });

  it("lists from the lock but refuses the first call when the skill's schema changed after locking", async () => {
    const indexFile = path.join(skillDir, "index.js");
    const original = await readFile(indexFile, "utf8");
    try {
      await writeFile(indexFile, original.replace("maximum: 1000", "maximum: 10"));
      await served(async (client) => {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toEqual(["lazy.say_one", "lazy.say_two"]);
        const answer = (await client.callTool({ name: "lazy.say_one", arguments: { ms: 0 } }))
          .structuredContent as Envelope;
        expect(answer).toMatchObject({ ok: false, error: { code: "UNAVAILABLE" } });
        expect(answer.message).toContain("skillport lock");
      });
    } finally {
      await writeFile(indexFile, original);
    }
  });

  it("accepts its lock with the keys in another order, and refuses it once a locked field is edited", async () => {
    const honest = await readFile(lockFile, "utf8");
    try {
      // The same lock, every object's keys reversed: its hashes are over canonical JSON, so it still matches.
      const reordered = reverseKeys(JSON.parse(honest)) as {
        instances: { skill: { tools: { description: string }[] } }[];
      };
      await writeFile(lockFile, JSON.stringify(reordered, null, 1));
      await served(async (client) => {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toEqual(["lazy.say_one", "lazy.say_two"]);
      });
      const tool = reordered.instances[0]?.skill.tools[0];
      if (tool === undefined) throw new Error("the lock has no tool");
      tool.description = "Says anything you like.";
      await writeFile(lockFile, JSON.stringify(reordered, null, 1));
      const frozen = await runCli(["serve", "--stdio", "--frozen-lock", "--manifest", manifest], ws.dir);
      expect(frozen.code).toBe(1);
      expect(frozen.stderr).toContain("the lock was edited by hand");
    } finally {
      await writeFile(lockFile, honest);
    }
  });
});

// --- internal ---

function reverseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseKeys);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([k, v]) => [k, reverseKeys(v)]),
  );
}

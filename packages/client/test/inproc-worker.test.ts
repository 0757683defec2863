import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cp, mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import type { McpHandle } from "@skillport/client";
import { connect } from "@skillport/client/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Scratch } from "./helpers.js";
import { notesManifest, REPO, scratch } from "./helpers.js";

const exec = promisify(execFile);

async function searchWorks(handle: McpHandle) {
  const started = await handle.start();
  expect(started.ok).toBe(true);
  expect(started.ok ? started.tools.map((t) => t.name) : []).toEqual([
    "notes.search_notes",
    "notes.read_note",
    "notes.create_study_task",
  ]);
  const found = await handle.callTool("notes.search_notes", { keyword: "agent", limit: 1 });
  expect(found.ok && (found.result.structuredContent as { ok: boolean }).ok).toBe(true);
  const refused = await handle.callTool("notes.read_note", { path: "../outside.md" });
  expect(refused).toMatchObject({ ok: false, error: { code: "TOOL_ERROR" } });
  const resources = await handle.listResources();
  const note = resources.ok ? resources.resources.find((r) => r.uri.endsWith("AI-Agent/mcp-basics.md")) : undefined;
  const read = await handle.readResource(note?.uri ?? "notes://notes/AI-Agent/mcp-basics.md");
  expect(read.ok ? read.contents[0]?.text : "").toMatch(/MCP/);
  await handle.stop();
  expect(handle.state.value).toBe("idle");
}

describe("a Skillport host in this process and in a worker thread", () => {
  let where: Scratch;
  let manifest: string;
  beforeAll(async () => {
    where = await scratch();
    manifest = await notesManifest(where);
  });
  afterAll(() => where.dispose());

  it("inproc, from a manifest file", async () => {
    const handle = connect({ transport: "inproc", manifest, logLevel: "silent" });
    expect(handle.transport).toBe("inproc");
    await searchWorks(handle);
  });

  it("inproc, from a manifest object; an invalid one answers UNAVAILABLE with the host's reason", async () => {
    const object = JSON.parse(await readFile(manifest, "utf8"));
    await searchWorks(connect({ transport: "inproc", manifest: object, dir: where.dir, logLevel: "silent" }));
    const invalid = connect({ transport: "inproc", manifest: { name: "x" }, logLevel: "silent" });
    const started = await invalid.start();
    expect(started).toMatchObject({ ok: false, error: { code: "UNAVAILABLE" } });
    expect(started.ok ? "" : started.error.message).toMatch(
      /cannot start: 1 problem in .*\n {2}- skills: is required but missing/,
    );
  });

  it("inproc and worker: a manifest's upstream servers are mounted through this client", async () => {
    const fixture = path.join(REPO, "packages/client/test/fixtures/fixture-server.mjs");
    const file = path.join(where.dir, "servers.manifest.json");
    const servers = [{ mcp: "up", command: process.execPath, args: [fixture] }];
    await writeFile(file, JSON.stringify({ name: "servers", version: "1.0.0", skills: [], servers }));
    for (const transport of ["inproc", "worker"] as const) {
      const handle = connect({ transport, manifest: file, logLevel: "silent" });
      const started = await handle.start();
      expect(started.ok ? started.tools.map((t) => t.name) : started.error.message, transport).toContain("up.echo");
      const echoed = await handle.callTool("up.echo", { text: "hi" });
      expect(echoed.ok && (echoed.result.structuredContent as { ok: boolean }).ok, transport).toBe(true);
      await handle.stop();
    }
  });

  it("worker, from a manifest file", async () => {
    const handle = connect({ transport: "worker", manifest, logLevel: "silent" });
    expect(handle.transport).toBe("worker");
    await searchWorks(handle);
  });

  it("worker: its environment is only what the spec gives it", async () => {
    process.env.SKILLPORT_CLIENT_TEST_CONFIRM = randomSecret();
    try {
      const needsSecret = await notesManifest(where, {
        confirmation: { secret: { env: "SKILLPORT_CLIENT_TEST_CONFIRM" } },
      });
      // This process has the variable; the worker does not get it unless the spec says so.
      const bare = connect({ transport: "worker", manifest: needsSecret, logLevel: "silent" });
      const refused = await bare.start();
      expect(refused).toMatchObject({ ok: false, error: { code: "UNAVAILABLE" } });
      expect(refused.ok ? "" : refused.error.message).toContain("SKILLPORT_CLIENT_TEST_CONFIRM is not set");
      const given = connect({
        transport: "worker",
        manifest: needsSecret,
        logLevel: "silent",
        credentials: {
          confirm: { from: { env: "SKILLPORT_CLIENT_TEST_CONFIRM" }, to: { env: "SKILLPORT_CLIENT_TEST_CONFIRM" } },
        },
      });
      expect((await given.start()).ok).toBe(true);
      await given.stop();
      const missing = connect({
        transport: "worker",
        manifest: needsSecret,
        credentials: { confirm: { from: { env: "SKILLPORT_CLIENT_TEST_UNSET" }, to: { env: "X" } } },
      });
      expect(await missing.start()).toMatchObject({ ok: false, error: { code: "CREDENTIALS_MISSING" } });
    } finally {
      delete process.env.SKILLPORT_CLIENT_TEST_CONFIRM;
    }
  });

  it("without @skillport/host installed, inproc and worker answer HOST_MISSING saying how to install it", async () => {
    // The client's built files alone, with its own dependencies (as an install gives them) but no host, outside the
    // repository.
    const app = where.file("app");
    const pkg = path.join(app, "node_modules/@skillport/client");
    await mkdir(path.join(app, "node_modules/@modelcontextprotocol"), { recursive: true });
    await cp(new URL("../dist", import.meta.url), path.join(pkg, "dist"), { recursive: true });
    await cp(new URL("../package.json", import.meta.url), path.join(pkg, "package.json"));
    const { dependencies } = JSON.parse(await readFile(path.join(pkg, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    for (const name of Object.keys(dependencies)) {
      await symlink(path.join(REPO, "packages/client/node_modules", name), path.join(app, "node_modules", name));
    }
    await writeFile(path.join(app, "package.json"), JSON.stringify({ type: "module" }));
    await writeFile(
      path.join(app, "main.js"),
      `import { connect } from "@skillport/client/node";
const out = {};
for (const transport of ["inproc", "worker"]) {
  out[transport] = await connect({ transport, manifest: ${JSON.stringify(manifest)} }).start();
}
console.log(JSON.stringify(out));`,
    );
    const { stdout } = await exec(process.execPath, ["main.js"], { cwd: app });
    const out = JSON.parse(stdout) as Record<string, { ok: boolean; error?: { code: string; message: string } }>;
    for (const transport of ["inproc", "worker"]) {
      expect(out[transport]).toMatchObject({ ok: false, error: { code: "HOST_MISSING" } });
      expect(out[transport]?.error?.message).toContain("pnpm add @skillport/host");
    }
  });
});

function randomSecret(): string {
  return randomBytes(32).toString("hex");
}

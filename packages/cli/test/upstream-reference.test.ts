// biome-ignore-all lint/suspicious/noTemplateCurlyInString: manifests write environment variables as ${NAME}, literally
// Upstream MCP servers nobody here wrote — the official reference servers from npm — mounted through a manifest's
// `servers` of a host built as `skillport serve --stdio` builds it (served in this process, the servers in their own)
// and driven by the official SDK client: listed beside a skill, namespaced,
// filtered, renamed and overridden; called through the host's pipeline (validation against the server's published
// schema, confirmation of destructive tools, cancellation, redaction); each seeing only the environment it is given.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StdioInProcess } from "./in-process.js";
import { stdioInProcess } from "./in-process.js";
import type { Workspace } from "./workspace.js";
import { makeWorkspace, NOTES_SKILL, runCli } from "./workspace.js";

const MODULES = fileURLToPath(new URL("../node_modules/@modelcontextprotocol/", import.meta.url));
const FILESYSTEM = path.join(MODULES, "server-filesystem/dist/index.js");
const EVERYTHING = path.join(MODULES, "server-everything/dist/index.js");

type Envelope = {
  ok: boolean;
  message: string;
  data?: unknown;
  error?: { code: string; field?: string; retryable?: boolean };
};

const SECRET = "upstream-api-key-7c1f0e9d2b";
const OUTER_ONLY = "outer-host-secret-4a8e2c";

describe("the official reference servers mounted through the manifest", () => {
  let ws: Workspace;
  let root: string;
  let manifest: string;
  let client: Client;
  let stderr: () => string;
  let connected: StdioInProcess;
  const asked: string[] = [];

  const call = async (name: string, args: Record<string, unknown>, options: { signal?: AbortSignal } = {}) => {
    const result = await client.callTool({ name, arguments: args }, options);
    return result.structuredContent as Envelope;
  };

  beforeAll(async () => {
    ws = await makeWorkspace();
    root = path.join(ws.dir, "root");
    await mkdir(path.join(root, "docs"), { recursive: true });
    await writeFile(path.join(root, "docs/hello.md"), "# Hello\nfrom a file\n");
    manifest = await ws.writeManifest(
      {
        name: "upstream-test",
        skills: [{ path: NOTES_SKILL, mcp: "notes", config: { vault: "./vault" } }],
        servers: [
          {
            mcp: "fs",
            command: process.execPath,
            // A relative path: the server runs in the manifest's folder (a variable is refused in a command line).
            args: [FILESYSTEM, "./root"],
            tools: {
              exclude: ["read_file", "edit_file", "move_file"],
              rename: { read_text_file: "read" },
              override: { list_directory: { description: "List a folder of the team's docs." } },
            },
            allow: ["write_file"],
          },
          {
            mcp: "every",
            command: process.execPath,
            args: [EVERYTHING, "stdio"],
            env: { API_KEY: "${UPSTREAM_KEY}", GREETING: "hi" },
            tools: { include: ["echo", "get-env", "get-sum", "trigger-long-running-operation"] },
          },
        ],
      },
      "upstream.manifest.json",
    );
    connected = await stdioInProcess(manifest, {
      env: { DOCS_ROOT: root, UPSTREAM_KEY: SECRET, OUTER_ONLY },
      client: { capabilities: { elicitation: { form: {} } } },
    });
    client = connected.client;
    stderr = connected.stderr;
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.push(String((request.params as { message?: string }).message));
      return { action: "accept", content: { confirm: true } };
    });
  }, 60_000);
  afterAll(async () => {
    await connected?.close();
    await ws.dispose();
  });

  it("lists their tools beside the skill's: namespaced, filtered, renamed and overridden", async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "notes.search_notes",
        "fs.read",
        "fs.list_directory",
        "fs.write_file",
        "every.echo",
        "every.get-sum",
      ]),
    );
    expect(names).not.toContain("fs.read_text_file");
    expect(names).not.toContain("fs.edit_file");
    expect(names).not.toContain("every.get-tiny-image");
    const list = tools.find((t) => t.name === "fs.list_directory");
    expect(list?.description).toBe("List a folder of the team's docs.");
    expect(list?.annotations).toMatchObject({ readOnlyHint: true });
    // The server's published schema is what clients see, and what the host validates against.
    expect(tools.find((t) => t.name === "every.get-sum")?.inputSchema).toMatchObject({
      type: "object",
      required: ["a", "b"],
    });
    expect(tools.find((t) => t.name === "fs.write_file")?.annotations).toMatchObject({ destructiveHint: true });
  });

  it("calls them through the host: the answer is the host's envelope around what the server said", async () => {
    const read = await call("fs.read", { path: path.join(root, "docs/hello.md") });
    expect(read).toMatchObject({ ok: true, data: { content: "# Hello\nfrom a file\n" } });
    const sum = await call("every.get-sum", { a: 40, b: 2 });
    expect(sum.ok).toBe(true);
    expect(JSON.stringify(sum.data)).toContain("42");
    const [skill] = [await call("notes.search_notes", { keyword: "agent" })];
    expect(skill?.ok).toBe(true);
  });

  it("refuses arguments that do not match the server's schema before the server sees them", async () => {
    const invalid = await call("every.get-sum", { a: "two", b: 2 });
    expect(invalid).toMatchObject({ ok: false, error: { code: "ARGUMENT_INVALID", field: "/a" } });
  });

  it("answers a server's own refusal as UPSTREAM_ERROR with what the server said", async () => {
    const outside = await call("fs.read", { path: "/etc/hostname" });
    expect(outside).toMatchObject({ ok: false, error: { code: "UPSTREAM_ERROR" } });
    expect(outside.message).toMatch(/outside allowed directories|Access denied/i);
  });

  it("forwards cancellation: a long operation cancelled by the client ends well before its 30 s", async () => {
    const controller = new AbortController();
    // Thirty steps of a second, one progress report each: cancelled at the first report, it never reaches the end.
    let reports = 0;
    const long = client.callTool(
      { name: "every.trigger-long-running-operation", arguments: { duration: 30, steps: 30 } },
      {
        signal: controller.signal,
        onprogress: () => {
          reports++;
          controller.abort();
        },
      },
    );
    await expect(long).rejects.toThrow();
    expect(reports).toBeGreaterThan(0);
    expect(reports).toBeLessThan(30);
    // The server keeps serving.
    const after = await call("every.echo", { message: "after" });
    expect(JSON.stringify(after.data)).toContain("after");
  });

  it("forwards the server's progress to the caller who asked for it, in order", async () => {
    const seen: { progress: number; total?: number }[] = [];
    const result = await client.callTool(
      { name: "every.trigger-long-running-operation", arguments: { duration: 1, steps: 4 } },
      { onprogress: (p) => seen.push({ progress: p.progress, ...(p.total === undefined ? {} : { total: p.total }) }) },
    );
    expect((result.structuredContent as Envelope).ok).toBe(true);
    // The SDK client this test drives may drop a progress notification read together with the answer: count on
    // what came before it.
    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (const p of seen) expect(p).toEqual({ progress: expect.any(Number), total: 4 });
    const values = seen.map((p) => p.progress);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(new Set(values).size).toBe(values.length);
  });

  it("runs a destructive tool only when allowed and confirmed by the user", async () => {
    asked.length = 0;
    const target = path.join(root, "docs/new.md");
    const written = await call("fs.write_file", { path: target, content: "written upstream\n" });
    expect(written.ok).toBe(true);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain("fs.write_file");
    expect(await readFile(target, "utf8")).toBe("written upstream\n");
  });

  it("gives a server only the environment its entry names, and redacts what it read for it", async () => {
    const env = await call("every.get-env", {});
    const seen = JSON.stringify(env);
    expect(seen).toContain("GREETING");
    expect(seen).toContain("API_KEY");
    // The value the host read for the server is a secret: it never comes back out, even from the server itself.
    expect(seen).not.toContain(SECRET);
    // Nothing of the host's own environment beyond what the entry names (and PATH, HOME for npx).
    expect(seen).not.toContain(OUTER_ONLY);
    expect(seen).not.toContain("DOCS_ROOT");
    expect(stderr()).not.toContain(SECRET);
  });
});

describe("a destructive upstream tool the manifest does not allow", () => {
  let ws: Workspace;
  afterAll(() => ws?.dispose());

  it("is refused with PERMISSION_DENIED naming servers[i].allow, and the file is untouched", async () => {
    ws = await makeWorkspace();
    const root = path.join(ws.dir, "root");
    await mkdir(root, { recursive: true });
    await writeFile(path.join(root, "keep.md"), "keep\n");
    const manifest = await ws.writeManifest(
      { skills: [], servers: [{ mcp: "fs", command: process.execPath, args: [FILESYSTEM, root] }] },
      "deny.manifest.json",
    );
    const ran = await runCli(
      [
        "call",
        "fs.write_file",
        JSON.stringify({ path: path.join(root, "keep.md"), content: "gone" }),
        "--yes",
        "--manifest",
        manifest,
      ],
      ws.dir,
      { SKILLPORT_LOG_LEVEL: "silent" },
    );
    expect(ran.code).toBe(1);
    const envelope = JSON.parse(ran.stdout) as Envelope;
    expect(envelope).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED" } });
    expect(envelope.message).toContain("servers[0].allow");
    expect(await readFile(path.join(root, "keep.md"), "utf8")).toBe("keep\n");
  }, 60_000);
});

describe("an upstream server is named as it names itself, never by its command line", () => {
  let ws: Workspace;
  let root: string;
  let manifest: string;
  beforeAll(async () => {
    ws = await makeWorkspace();
    root = path.join(ws.dir, "root");
    await mkdir(root, { recursive: true });
    await writeFile(path.join(root, "hello.md"), "hello\n");
    manifest = await ws.writeManifest(
      { skills: [], servers: [{ mcp: "fs", command: process.execPath, args: [FILESYSTEM, root] }] },
      "fs.manifest.json",
    );
  });
  afterAll(() => ws?.dispose());

  // The filesystem server's serverInfo: what list, audit lines and meta.toolVersion say.
  const NAMED = "secure-filesystem-server@0.2.0";

  it("in list, in the call's audit line (with the entry's mcp id) and in meta.toolVersion", async () => {
    const listed = await runCli(["list", "--manifest", manifest], ws.dir, { SKILLPORT_LOG_LEVEL: "silent" });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(NAMED);
    expect(listed.stdout).not.toContain("index.js");
    expect(listed.stdout).not.toContain("upstream");

    const called = await runCli(
      ["call", "fs.list_directory", JSON.stringify({ path: root }), "--manifest", manifest],
      ws.dir,
      { SKILLPORT_LOG_LEVEL: "info" },
    );
    expect(called.code).toBe(0);
    const envelope = JSON.parse(called.stdout) as Envelope & { meta: { toolVersion: string } };
    expect(envelope.meta.toolVersion).toBe("0.2.0");
    const audit = called.stderr
      .split("\n")
      .filter((line) => line.includes('"kind":"audit"'))
      .map((line) => JSON.parse(line) as { skill: string; instance: string });
    expect(audit).toEqual([expect.objectContaining({ skill: NAMED, instance: "fs" })]);
  }, 60_000);

  it("the lock records the name, so a locked host names the server before it starts it", async () => {
    const locked = await runCli(["lock", "--manifest", manifest], ws.dir, { SKILLPORT_LOG_LEVEL: "silent" });
    expect(locked.code).toBe(0);
    const lock = JSON.parse(await readFile(path.join(ws.dir, "fs.lock.json"), "utf8"));
    expect(lock.servers[0].server).toEqual({ name: "secure-filesystem-server", version: "0.2.0" });
    const listed = await runCli(["list", "--manifest", manifest], ws.dir, { SKILLPORT_LOG_LEVEL: "silent" });
    expect(listed.stdout).toContain(NAMED);
  }, 60_000);
});

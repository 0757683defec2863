// Servers nobody here wrote: the official reference servers from npm, through the client and the hub.
import { mkdir, writeFile } from "node:fs/promises";
import { McpHub } from "@skillport/client";
import type { StdioSpec } from "@skillport/client/node";
import { connect } from "@skillport/client/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Scratch } from "./helpers.js";
import { EVERYTHING, FILESYSTEM, scratch } from "./helpers.js";

const text = (outcome: { ok: boolean; result?: { content: unknown[] } }) =>
  (outcome.result?.content[0] as { text?: string } | undefined)?.text ?? "";

const everything = (extra: Partial<StdioSpec> = {}): StdioSpec => ({
  transport: "stdio",
  command: process.execPath,
  args: [EVERYTHING, "stdio"],
  ...extra,
});

describe("the official reference servers through the client", () => {
  let where: Scratch;
  let root: string;
  beforeAll(async () => {
    where = await scratch();
    root = where.file("root");
    await mkdir(`${root}/docs`, { recursive: true });
    await writeFile(`${root}/docs/hello.md`, "# Hello\nfrom a file\n");
  });
  afterAll(() => where.dispose());

  it("server-everything: lists tools with their JSON Schemas, calls, and sees only its explicit environment", async () => {
    const handle = connect(everything({ env: { GREETING: "hi" } }));
    const started = await handle.start();
    expect(started.ok).toBe(true);
    const tools = started.ok ? started.tools : [];
    const echo = tools.find((t) => t.name === "echo");
    expect(echo?.inputSchema).toMatchObject({ type: "object", required: ["message"] });
    expect(text(await handle.callTool("echo", { message: "hello" }))).toContain("hello");
    const sum = await handle.callTool("get-sum", { a: 2, b: 3 });
    expect(text(sum)).toContain("5");
    const env = JSON.parse(text(await handle.callTool("get-env")));
    expect(env).toEqual({ GREETING: "hi" });
    await handle.stop();
  });

  it("server-everything: invalid arguments and unknown tools are values, not throws", async () => {
    const handle = connect(everything());
    const invalid = await handle.callTool("get-sum", { a: "two" });
    expect(invalid.ok).toBe(false);
    expect(["TOOL_ERROR", "PROTOCOL_ERROR"]).toContain(invalid.ok ? "" : invalid.error.code);
    const unknown = await handle.callTool("no-such-tool");
    expect(unknown.ok).toBe(false);
    expect(unknown.ok ? "" : unknown.error.message).toContain("no-such-tool");
    await handle.stop();
  });

  it("server-everything: cancelling a long-running operation answers CANCELLED well before its 30 s", async () => {
    const handle = connect(everything());
    expect((await handle.start()).ok).toBe(true);
    const controller = new AbortController();
    // Thirty steps of a second, one progress report each: cancelled at the first report, it never reaches the end.
    let reports = 0;
    const outcome = await handle.callTool(
      "trigger-long-running-operation",
      { duration: 30, steps: 30 },
      {
        signal: controller.signal,
        onProgress: () => {
          reports++;
          controller.abort();
        },
      },
    );
    expect(outcome).toMatchObject({ ok: false, error: { code: "CANCELLED" } });
    expect(reports).toBeGreaterThan(0);
    expect(reports).toBeLessThan(30);
    expect(handle.state.value).toBe("ready");
    expect(text(await handle.callTool("echo", { message: "after" }))).toContain("after");
    await handle.stop();
  });

  it("server-everything: resources, templates and prompts on the handle; what it does not have is a value", async () => {
    const handle = connect(everything());
    const resources = await handle.listResources();
    expect(resources.ok).toBe(true);
    const listed = resources.ok ? resources.resources : [];
    const doc = listed.find((r) => r.uri.startsWith("demo://resource/static/document/"));
    expect(doc).toMatchObject({ name: expect.any(String), mimeType: expect.any(String) });
    const read = await handle.readResource(doc?.uri ?? "");
    expect(read.ok && read.contents[0]?.uri).toBe(doc?.uri);
    expect(read.ok ? (read.contents[0]?.text?.length ?? 0) : 0).toBeGreaterThan(0);
    const templates = await handle.listResourceTemplates();
    expect(templates.ok ? templates.resourceTemplates.map((t) => t.uriTemplate) : []).toContain(
      "demo://resource/dynamic/text/{resourceId}",
    );
    const dynamic = await handle.readResource("demo://resource/dynamic/text/7");
    expect(dynamic.ok ? dynamic.contents[0]?.text : "").toContain("Resource 7");
    const missing = await handle.readResource("demo://nowhere/at/all");
    expect(missing).toMatchObject({ ok: false, error: { code: "PROTOCOL_ERROR", rpcCode: expect.any(Number) } });
    expect(missing.ok ? "" : missing.error.message).toContain("demo://nowhere/at/all");

    const prompts = await handle.listPrompts();
    const args = prompts.ok ? prompts.prompts.find((p) => p.name === "args-prompt") : undefined;
    expect(args?.arguments).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: "city", required: true })]),
    );
    const got = await handle.getPrompt("args-prompt", { city: "Lyon", state: "Rhône" });
    expect(got.ok && got.result.messages[0]).toMatchObject({
      role: "user",
      content: { type: "text", text: expect.stringContaining("Lyon, Rhône") },
    });
    const unknown = await handle.getPrompt("no-such-prompt");
    expect(unknown).toMatchObject({ ok: false, error: { code: "PROTOCOL_ERROR" } });
    expect(handle.state.value).toBe("ready");
    await handle.stop();
  });

  it("server-filesystem offers no prompts: an empty list, not a failure", async () => {
    const handle = connect({ transport: "stdio", command: process.execPath, args: [FILESYSTEM, root] });
    expect(await handle.listPrompts()).toEqual({ ok: true, prompts: [] });
    const cancelled = new AbortController();
    cancelled.abort();
    expect(await handle.readResource("file:///etc/hostname", { signal: cancelled.signal })).toMatchObject({
      ok: false,
      error: { code: "CANCELLED" },
    });
    await handle.stop();
  });

  it("server-everything: a call's progress notifications reach onProgress", async () => {
    const handle = connect(everything());
    const seen: unknown[] = [];
    const outcome = await handle.callTool(
      "trigger-long-running-operation",
      { duration: 1, steps: 3 },
      { onProgress: (p) => seen.push(p) },
    );
    expect(outcome.ok).toBe(true);
    expect(seen).toEqual([
      { progress: 1, total: 3 },
      { progress: 2, total: 3 },
      { progress: 3, total: 3 },
    ]);
    await handle.stop();
  });

  it("server-filesystem: lists and reads inside its root, refuses outside it", async () => {
    const handle = connect({ transport: "stdio", command: process.execPath, args: [FILESYSTEM, root] });
    const listed = await handle.callTool("list_directory", { path: `${root}/docs` });
    expect(text(listed)).toContain("hello.md");
    expect(text(await handle.callTool("read_text_file", { path: `${root}/docs/hello.md` }))).toContain("from a file");
    const outside = await handle.callTool("read_text_file", { path: "/etc/hostname" });
    expect(outside).toMatchObject({ ok: false, error: { code: "TOOL_ERROR" } });
    expect(outside.ok ? "" : outside.error.message).toMatch(/outside allowed directories|Access denied/i);
    await handle.stop();
  });

  it("server-filesystem: start() says how the server names itself (its serverInfo), started or already ready", async () => {
    const handle = connect({ transport: "stdio", command: process.execPath, args: [FILESYSTEM, root] });
    const first = await handle.start();
    expect(first).toMatchObject({ ok: true, server: { name: "secure-filesystem-server", version: "0.2.0" } });
    expect(await handle.start()).toMatchObject({ ok: true, server: { name: "secure-filesystem-server" } });
    await handle.stop();
  });

  it("both through one hub, namespaced, each on its own", async () => {
    const hub = new McpHub({
      every: connect(everything()),
      fs: connect({ transport: "stdio", command: process.execPath, args: [FILESYSTEM, root] }),
    });
    const started = await hub.start();
    expect(started.ok).toBe(true);
    const names = hub.listTools().map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(["every.echo", "every.get-sum", "fs.read_text_file", "fs.list_directory"]),
    );
    const [sum, read] = await Promise.all([
      hub.callTool("every.get-sum", { a: 40, b: 2 }),
      hub.callTool("fs.read_text_file", { path: `${root}/docs/hello.md` }),
    ]);
    expect(text(sum)).toContain("42");
    expect(text(read)).toContain("# Hello");
    const outside = await hub.callTool("fs.read_text_file", { path: "/etc/hostname" });
    expect(outside).toMatchObject({ ok: false, error: { code: "TOOL_ERROR" } });
    const controller = new AbortController();
    const long = hub.callTool(
      "every.trigger-long-running-operation",
      { duration: 30, steps: 30 },
      {
        signal: controller.signal,
      },
    );
    setTimeout(() => controller.abort(), 300);
    expect(await long).toMatchObject({ ok: false, error: { code: "CANCELLED" } });
    expect(text(await hub.callTool("every.echo", { message: "still here" }))).toContain("still here");
    await hub.stop();
  });
});

import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Host } from "../src/host.js";
import { createHost } from "../src/host.js";
import type { HttpServing } from "../src/mcp/serve-http.js";
import { serveHostHttp } from "../src/mcp/serve-http.js";
import { FIXTURES, manifestOf, silentLogger } from "./helpers.js";
import { ERAS } from "./http-helpers.js";

const LIBRARY = path.join(FIXTURES, "skill-library");
const TOKEN = "lib-secret-4b1d9e77c2a0";

interface Served {
  host: Host;
  serving: HttpServing;
  dir: string;
  record: string;
}

async function serve(entry: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Promise<Served> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "skillport-resources-"));
  const record = path.join(dir, "record.log");
  process.env.SKILLPORT_LIBRARY_TOKEN = TOKEN;
  const host = await createHost({
    manifest: manifestOf({
      name: "library-server",
      version: "1.0.0",
      skills: [
        { path: LIBRARY, config: { record }, credentials: { token: { env: "SKILLPORT_LIBRARY_TOKEN" } }, ...entry },
      ],
      audit: { file: path.join(dir, "audit.log") },
      ...extra,
    }),
    logger: silentLogger(),
  });
  delete process.env.SKILLPORT_LIBRARY_TOKEN;
  const serving = await serveHostHttp(host, { port: 0 });
  return { host, serving, dir, record };
}

async function stop(served: Served): Promise<void> {
  await served.serving.close({ graceMs: 0 });
  await served.host.close();
  await rm(served.dir, { recursive: true, force: true });
}

type Era = (typeof ERAS)[number]["options"];

async function connect(url: string, era: Era, capabilities: Record<string, unknown> = {}): Promise<Client> {
  const client = new Client({ name: "resources-test", version: "0.0.0" }, { ...era, capabilities } as never);
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

const errorOf = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error("expected the request to fail");
    },
    (error: { code?: number; message?: string; data?: unknown }) => error,
  );

describe.each(ERAS)("resources, templates, prompts and completions over HTTP, $era", ({ options: era }) => {
  let served: Served;
  let client: Client;
  beforeAll(async () => {
    served = await serve();
    client = await connect(served.serving.url, era);
  });
  afterAll(async () => {
    await client.close();
    await stop(served);
  });

  it("lists the instance's resources under its mcp id, its template's resources, and its SKILL.md", async () => {
    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri);
    expect(uris).toEqual(
      expect.arrayContaining([
        "lib://library/catalog",
        "lib://library/cover",
        "lib://library/books/1",
        "lib://library/books/12",
        "skill://library/library/SKILL.md",
      ]),
    );
    expect(resources.find((r) => r.uri === "lib://library/books/12")).toMatchObject({ name: "Ivanhoe" });
    expect(resources.find((r) => r.uri.startsWith("skill://"))).toMatchObject({
      name: "library",
      mimeType: "text/markdown",
    });
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toEqual([
      {
        uriTemplate: "lib://library/books/{id}",
        name: "book",
        title: "Book",
        description: "One book by id.",
        mimeType: "text/plain",
      },
    ]);
  });

  it("reads text, bytes (base64) and a template's parts, the skill's own URIs rewritten to the served ones", async () => {
    const catalog = await client.readResource({ uri: "lib://library/catalog" });
    expect(catalog.contents).toEqual([
      { uri: "lib://library/catalog", mimeType: "application/json", text: expect.stringContaining("Dune") },
    ]);
    const cover = await client.readResource({ uri: "lib://library/cover" });
    expect(cover.contents[0]).toMatchObject({ mimeType: "image/png", blob: expect.stringMatching(/^iVBOR/) });
    const book = await client.readResource({ uri: "lib://library/books/12" });
    expect(book.contents).toEqual([
      { uri: "lib://library/books/12", mimeType: "text/plain", text: "Book 12: Ivanhoe" },
      { uri: "lib://library/cover", mimeType: "image/png", blob: expect.any(String) },
    ]);
  });

  it("answers a URI no resource has with invalid params naming it, and a book the skill lacks the same way", async () => {
    for (const uri of ["lib://library/nothing", "lib://other/catalog", "lib://library/books/99"]) {
      const error = await errorOf(client.readResource({ uri }));
      expect(error.code).toBe(-32602);
      expect(error.data).toMatchObject({ uri });
    }
  });

  it("checks a template's variables against its schema before the skill sees them: traversal and size refused", async () => {
    for (const uri of [
      "lib://library/books/..%2F..%2Fetc%2Fpasswd",
      "lib://library/books/1%00",
      `lib://library/books/${"1".repeat(5000)}`,
    ]) {
      const error = await errorOf(client.readResource({ uri }));
      expect(error.code).toBe(-32602);
      expect(error.message).toContain("ARGUMENT_INVALID (at /id)");
    }
  });

  it("renders a prompt with its arguments checked, an embedded resource's URI rewritten", async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.find((p) => p.name === "library.summarize_book")).toMatchObject({
      title: "Summarize a book",
      arguments: [
        { name: "id", description: "the book's number", required: true },
        { name: "style", description: "how to write it", required: false },
      ],
    });
    const rendered = await client.getPrompt({ name: "library.summarize_book", arguments: { id: "2", style: "brief" } });
    expect(rendered.messages).toEqual([
      {
        role: "user",
        content: { type: "resource", resource: { uri: "lib://library/books/2", text: "Book 2: Emma" } },
      },
      { role: "user", content: { type: "text", text: "Summarize it in a brief style." } },
    ]);
    const bad = await errorOf(client.getPrompt({ name: "library.summarize_book", arguments: { id: "two" } }));
    expect(bad.code).toBe(-32602);
    expect(bad.message).toContain("(at /id)");
    const missing = await errorOf(client.getPrompt({ name: "library.summarize_book", arguments: {} }));
    expect(missing.code).toBe(-32602);
    const unknown = await errorOf(client.getPrompt({ name: "summarize_book" }));
    expect(unknown.code).toBe(-32602);
  });

  it("completes a prompt argument and a template variable, with the other arguments as context", async () => {
    const prompt = await client.complete({
      ref: { type: "ref/prompt", name: "library.summarize_book" },
      argument: { name: "id", value: "1" },
    });
    expect(prompt.completion).toMatchObject({ values: ["1", "12"], hasMore: false });
    const withContext = await client.complete({
      ref: { type: "ref/prompt", name: "library.summarize_book" },
      argument: { name: "id", value: "1" },
      context: { arguments: { style: "none" } },
    });
    expect(withContext.completion.values).toEqual([]);
    const template = await client.complete({
      ref: { type: "ref/resource", uri: "lib://library/books/{id}" },
      argument: { name: "id", value: "" },
    });
    expect(template.completion.values).toEqual(["1", "2", "3", "12"]);
    const none = await client.complete({
      ref: { type: "ref/prompt", name: "library.summarize_book" },
      argument: { name: "style", value: "b" },
    });
    expect(none.completion.values).toEqual([]);
  });

  it("redacts what leaves: a resource echoing the instance's token", async () => {
    const { contents } = await client.readResource({ uri: "lib://library/secret" });
    expect(JSON.stringify(contents)).not.toContain(TOKEN);
    expect(contents[0]).toMatchObject({ text: "token=[REDACTED]" });
  });

  it("stops a read stuck past its timeout, ignoring its signal: an internal error saying TIMEOUT", async () => {
    const error = await errorOf(client.readResource({ uri: "lib://library/stuck" }));
    expect(error.code).toBe(-32603);
    expect(error.message).toContain("TIMEOUT");
  });

  it("keeps a tool's own content after the envelope's text: an image, a link to a served URI, an embedded resource", async () => {
    const result = await client.callTool({ name: "library.show_cover", arguments: {} });
    expect(result.structuredContent).toMatchObject({ ok: true, data: { shown: true } });
    const content = result.content as { type: string }[];
    expect(content.map((c) => c.type)).toEqual(["text", "image", "resource_link", "resource"]);
    expect(content[1]).toMatchObject({ mimeType: "image/png", data: expect.stringMatching(/^iVBOR/) });
    expect(content[2]).toEqual({ type: "resource_link", uri: "lib://library/books/1", name: "Dune" });
    expect(content[3]).toMatchObject({ resource: { uri: "lib://library/catalog" } });
    const bad = await client.callTool({ name: "library.bad_content", arguments: {} });
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent).toMatchObject({ ok: false, error: { code: "INTERNAL" } });
  });

  it("serves the composition's SKILL.md through the Skills extension: list, get, and files whose digests verify", async () => {
    const skills = new SkillsClient(client);
    expect(skills.supported).toBe(true);
    const listing = await skills.list();
    expect(listing.skills.map((s) => s.uri)).toEqual(["skill://library/library/SKILL.md"]);
    const [entry] = listing.skills;
    expect(entry?.frontmatter).toMatchObject({ name: "library" });
    const file = await readFile(path.join(LIBRARY, "SKILL.md"));
    const digest = `sha256:${createHash("sha256").update(file).digest("hex")}`;
    expect(entry?.resources).toEqual(
      expect.arrayContaining([{ uri: "skill://library/library/SKILL.md", digest, size: file.byteLength }]),
    );
    const { skill } = await skills.get("skill://library/library/SKILL.md");
    expect(skill.uri).toBe("skill://library/library/SKILL.md");
    const guide = await client.readResource({ uri: "skill://library/library/references/GUIDE.md" });
    expect(guide.contents[0]).toMatchObject({ mimeType: "text/markdown", text: expect.stringContaining("numbered") });
    const unknown = await errorOf(skills.get("skill://nobody/nothing/SKILL.md"));
    expect(unknown.code).toBe(-32602);
  });
});

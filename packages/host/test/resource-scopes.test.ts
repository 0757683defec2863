import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import type { Caller } from "../src/entries/check-scopes.js";
import type { UpstreamHandle } from "../src/entries/upstream-client.js";
import { HostError } from "../src/errors/host-error.js";
import type { Host } from "../src/host.js";
import { createHost } from "../src/host.js";
import { serveHostHttp } from "../src/mcp/serve-http.js";
import { createServerFactory } from "../src/mcp/server.js";
import { buildRegistry } from "../src/registry/build-registry.js";
import { ECHO, FIXTURES, manifestOf, silentLogger } from "./helpers.js";
import { connect, ERAS, raw, rpc } from "./http-helpers.js";

// What an instance's `scopes` ask of a caller for its resources, templates, prompts and completions (issue 35,
// item 6): "*" covers everything the instance serves, "resources:*" and "prompts:*" add to it, and an instance that
// scopes its tools one by one without a key for its resources or prompts refuses them to every remote caller.

const LIBRARY = path.join(FIXTURES, "skill-library");
const CATALOG = "lib://library/catalog";
const BOOK = "lib://library/books/12";
const TEMPLATE = "lib://library/books/{id}";
const PROMPT = "library.summarize_book";

async function hostOf(scopes: Record<string, string[]> | undefined): Promise<Host> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "skillport-scopes-"));
  const host = await createHost({
    manifest: manifestOf({
      name: "scopes",
      version: "1.0.0",
      skills: [{ path: LIBRARY, ...(scopes === undefined ? {} : { scopes }) }],
      audit: { file: path.join(dir, "audit.log") },
    }),
    logger: silentLogger(),
  });
  onTestFinished(async () => {
    await host.close();
    await rm(dir, { recursive: true, force: true });
  });
  return host;
}

/** A client of the host in memory, its requests made by `caller` (as the HTTP transport passes it on), or local. */
async function as(host: Host, caller: Caller | undefined): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createServerFactory(host, { callerOf: () => caller })().connect(serverSide);
  const client = new Client({ name: "scopes-test", version: "0.0.0" });
  await client.connect(clientSide);
  onTestFinished(() => client.close());
  return client;
}

const caller = (...scopes: string[]): Caller => ({ id: "token:someone", scopes });

const errorOf = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error("expected the request to be refused");
    },
    (error: { code?: number; message?: string }) => error,
  );

/**
 * What the client can see and do with the library instance's resources and prompts; `subscribes` false for the
 * 2026-07-28 era, which has no resources/subscribe.
 */
async function reach(client: Client, subscribes = true) {
  const uris = (await client.listResources()).resources.map((r) => r.uri).filter((u) => !u.startsWith("skill://"));
  const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
  const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
  const settle = (promise: Promise<unknown>) =>
    promise.then(
      () => "ok",
      (error: { message?: string }) =>
        error.message?.includes("PERMISSION_DENIED") ? "denied" : String(error.message),
    );
  return {
    uris,
    templates,
    prompts,
    read: await settle(client.readResource({ uri: CATALOG })),
    readTemplate: await settle(client.readResource({ uri: BOOK })),
    ...(subscribes ? { subscribe: await settle(client.subscribeResource({ uri: CATALOG })) } : {}),
    completeTemplate: await settle(
      client.complete({ ref: { type: "ref/resource", uri: TEMPLATE }, argument: { name: "id", value: "1" } }),
    ),
    render: await settle(client.getPrompt({ name: PROMPT, arguments: { id: "1" } })),
    completePrompt: await settle(
      client.complete({ ref: { type: "ref/prompt", name: PROMPT }, argument: { name: "id", value: "1" } }),
    ),
    // An argument without completions answers none to a caller who may use the prompt, and is refused to others.
    completeOther: await settle(
      client.complete({ ref: { type: "ref/prompt", name: PROMPT }, argument: { name: "style", value: "x" } }),
    ),
  };
}

const OPEN = {
  read: "ok",
  readTemplate: "ok",
  subscribe: "ok",
  completeTemplate: "ok",
  render: "ok",
  completePrompt: "ok",
  completeOther: "ok",
};
const RESOURCES_OPEN = { read: "ok", readTemplate: "ok", subscribe: "ok", completeTemplate: "ok" };
const RESOURCES_DENIED = { read: "denied", readTemplate: "denied", subscribe: "denied", completeTemplate: "denied" };
const PROMPTS_OPEN = { render: "ok", completePrompt: "ok", completeOther: "ok" };
const PROMPTS_DENIED = { render: "denied", completePrompt: "denied", completeOther: "denied" };
const ALL_DENIED = { ...RESOURCES_DENIED, ...PROMPTS_DENIED };

describe("scopes of an instance's resources, templates, prompts and completions (in memory, a caller as over HTTP)", () => {
  it("asks nothing of a caller when the instance has no scopes", async () => {
    const host = await hostOf(undefined);
    expect(await reach(await as(host, caller()))).toMatchObject({
      uris: expect.arrayContaining([CATALOG, BOOK]),
      templates: [TEMPLATE],
      prompts: [PROMPT, "library.ask_topic"],
      ...OPEN,
    });
    expect(host.registry.scopeGaps).toEqual([]);
  });

  it('lets "*" cover everything the instance serves: hidden from and refused to a caller without it', async () => {
    const host = await hostOf({ "*": ["lib:use"] });
    expect(await reach(await as(host, caller("other")))).toEqual({
      uris: [],
      templates: [],
      prompts: [],
      ...ALL_DENIED,
    });
    expect(await reach(await as(host, caller("lib:use")))).toMatchObject({
      uris: expect.arrayContaining([CATALOG, BOOK]),
      templates: [TEMPLATE],
      prompts: [PROMPT, "library.ask_topic"],
      ...OPEN,
    });
    expect(host.registry.scopeGaps).toEqual([]);
  });

  it("fails closed when tools are scoped one by one and resources and prompts are not: every caller, whatever it holds", async () => {
    const host = await hostOf({ show_cover: ["lib:read"] });
    for (const who of [caller(), caller("lib:read")]) {
      expect(await reach(await as(host, who))).toEqual({ uris: [], templates: [], prompts: [], ...ALL_DENIED });
    }
    const error = await errorOf((await as(host, caller("lib:read"))).readResource({ uri: CATALOG }));
    expect(error.message).toContain(
      `PERMISSION_DENIED: resource ${CATALOG} is closed to callers over HTTP: instance "library" gives its tools scopes one by one, and the server's manifest names none for its resources ("resources:*")`,
    );
    expect(host.registry.scopeGaps.map((g) => [g.source, g.key])).toEqual([
      ['skills[0] (fixture-skill-library as "library")', "resources:*"],
      ['skills[0] (fixture-skill-library as "library")', "prompts:*"],
    ]);
    expect(host.registry.scopeGaps[0]?.message).toContain(
      'skills[0].scopes gives scopes to the tools show_cover one by one but has no "resources:*" key; add "resources:*": ["<scope>"] to skills[0].scopes',
    );
  });

  it('fails closed as well when "*" is given beside the tools\' own keys', async () => {
    const host = await hostOf({ "*": ["lib:use"], show_cover: ["lib:read"] });
    expect(await reach(await as(host, caller("lib:use", "lib:read")))).toEqual({
      uris: [],
      templates: [],
      prompts: [],
      ...ALL_DENIED,
    });
    expect(host.registry.scopeGaps.map((g) => g.key)).toEqual(["resources:*", "prompts:*"]);
  });

  it('opens resources with "resources:*" (and [] asks only the "*" scopes) while prompts stay closed', async () => {
    const host = await hostOf({ "*": ["lib:use"], show_cover: ["lib:read"], "resources:*": [] });
    expect(await reach(await as(host, caller("lib:use")))).toMatchObject({
      uris: expect.arrayContaining([CATALOG, BOOK]),
      templates: [TEMPLATE],
      prompts: [],
      ...RESOURCES_OPEN,
      ...PROMPTS_DENIED,
    });
    expect(await reach(await as(host, caller()))).toMatchObject({ uris: [], templates: [], ...RESOURCES_DENIED });
    expect(host.registry.scopeGaps.map((g) => g.key)).toEqual(["prompts:*"]);
  });

  it('asks the "prompts:*" scopes for prompts and their completions, and no more than that', async () => {
    const host = await hostOf({ show_cover: ["lib:read"], "resources:*": ["lib:docs"], "prompts:*": ["lib:ask"] });
    expect(await reach(await as(host, caller("lib:ask")))).toMatchObject({
      uris: [],
      templates: [],
      prompts: [PROMPT, "library.ask_topic"],
      ...RESOURCES_DENIED,
      ...PROMPTS_OPEN,
    });
    expect(await reach(await as(host, caller("lib:docs")))).toMatchObject({
      uris: expect.arrayContaining([CATALOG, BOOK]),
      prompts: [],
      ...RESOURCES_OPEN,
      ...PROMPTS_DENIED,
    });
    const error = await errorOf((await as(host, caller())).getPrompt({ name: PROMPT, arguments: { id: "1" } }));
    expect(error.message).toContain(
      `PERMISSION_DENIED: prompt ${PROMPT} requires the scope lib:ask, which caller "token:someone" does not hold`,
    );
    expect(host.registry.scopeGaps).toEqual([]);
  });

  it("checks nothing for local callers (stdio, in memory): a closed instance serves them everything", async () => {
    const host = await hostOf({ show_cover: ["lib:read"] });
    expect(await reach(await as(host, undefined))).toMatchObject({
      uris: expect.arrayContaining([CATALOG, BOOK]),
      templates: [TEMPLATE],
      prompts: [PROMPT, "library.ask_topic"],
      ...OPEN,
    });
  });

  it("keeps the SKILL.md files (instructions, not data) listed, readable and in skills/list for every caller", async () => {
    const host = await hostOf({ show_cover: ["lib:read"] });
    const client = await as(host, caller());
    const uris = (await client.listResources()).resources.map((r) => r.uri);
    expect(uris).toContain("skill://library/library/SKILL.md");
    const read = await client.readResource({ uri: "skill://library/library/SKILL.md" });
    expect(read.contents[0]).toMatchObject({ mimeType: "text/markdown" });
  });

  it("does not run a hidden template's list for a caller who may not see it, and audits its refused read", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "skillport-scopes-audit-"));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const audit = path.join(dir, "audit.log");
    const host = await createHost({
      manifest: manifestOf({
        skills: [{ path: LIBRARY, scopes: { show_cover: ["lib:read"] } }],
        audit: { file: audit },
      }),
      logger: silentLogger(),
    });
    const client = await as(host, caller());
    await client.listResources();
    await errorOf(client.readResource({ uri: BOOK }));
    await client.close();
    await host.close();
    const lines = (await readFile(audit, "utf8")).split("\n").filter((l) => l !== "");
    expect(lines.map((l) => JSON.parse(l) as { tool: string; outcome: string })).toEqual([
      expect.objectContaining({ tool: `resource ${BOOK}`, outcome: "PERMISSION_DENIED", caller: "token:someone" }),
    ]);
  });

  it("warns about no instance that serves no resources or prompts, however its tools are scoped", async () => {
    const registry = await buildRegistry(manifestOf({ skills: [{ path: ECHO, scopes: { echo: ["echo:use"] } }] }));
    onTestFinished(() => registry.close());
    expect(registry.scopeGaps).toEqual([]);
  });
});

describe("scope keys the host reserves", () => {
  async function problemsOf(json: unknown, options: Parameters<typeof buildRegistry>[1] = {}): Promise<string[]> {
    try {
      const registry = await buildRegistry(manifestOf(json), options);
      await registry.close();
    } catch (error) {
      expect(error).toBeInstanceOf(HostError);
      return [...(error as HostError).problems];
    }
    return [];
  }

  it('refuses a key with ":" other than "resources:*" and "prompts:*", naming both', async () => {
    expect(
      await problemsOf({ skills: [{ path: LIBRARY, scopes: { "resource:*": ["x"], "prompts:x": ["y"] } }] }),
    ).toEqual([
      'skills[0].scopes: "resource:*" is no key the host knows; a key with ":" is "resources:*" (the instance\'s resources and templates) or "prompts:*" (its prompts), and every other key is a tool name',
      'skills[0].scopes: "prompts:x" is no key the host knows; a key with ":" is "resources:*" (the instance\'s resources and templates) or "prompts:*" (its prompts), and every other key is a tool name',
    ]);
    expect(
      await problemsOf({ skills: [{ path: LIBRARY, scopes: { "resources:*": ["x"], "prompts:*": [] } }] }),
    ).toEqual([]);
  });

  it("refuses them on a server entry, which passes through tools only", async () => {
    const handle: UpstreamHandle = {
      start: async () => ({ ok: true, tools: [{ name: "read_file", inputSchema: { type: "object" } }] }),
      stop: async () => undefined,
      callTool: async () => ({ ok: true, result: { content: [] } }),
      state: { value: "ready", tools: undefined, subscribe: () => () => undefined },
    };
    const problems = await problemsOf(
      { skills: [], servers: [{ mcp: "fs", command: "fs-server", scopes: { "resources:*": ["fs:read"] } }] },
      // The server lists no pattern, so the engine is never asked; the scope check refuses the entry first.
      { client: async () => ({ connect: () => handle, linearRegExp: () => ({ test: () => true }) }) },
    );
    expect(problems).toEqual([
      'servers[0].scopes: "resources:*" has nothing to scope: a server entry serves the server\'s tools only (its resources and prompts are not passed through), so its keys are tool names and "*"',
    ]);
  });
});

describe.each(ERAS)("resource and prompt scopes over HTTP with bearer tokens, $era", ({ options: era }) => {
  const subscribes = !("versionNegotiation" in era);
  const expected = (answers: Record<string, string>) => {
    const { subscribe, ...rest } = answers;
    return subscribes ? { ...rest, subscribe } : rest;
  };
  const READER = "reader-token-5f0c2a9e7b1d";
  const NOBODY = "nobody-token-3c8e1f6a2d4b";
  let dir: string;
  let host: Host;
  let url: string;
  let close: () => Promise<unknown>;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "skillport-scopes-http-"));
    await writeFile(path.join(dir, "reader.token"), READER);
    await writeFile(path.join(dir, "nobody.token"), NOBODY);
    host = await createHost({
      manifest: manifestOf({
        name: "scopes-http",
        version: "1.0.0",
        skills: [{ path: LIBRARY, scopes: { show_cover: ["lib:read"], "resources:*": ["lib:read"] } }],
        http: {
          auth: {
            tokens: [
              { name: "reader", scopes: ["lib:read"], token: { file: path.join(dir, "reader.token") } },
              { name: "nobody", token: { file: path.join(dir, "nobody.token") } },
            ],
          },
        },
        audit: { file: path.join(dir, "audit.log") },
      }),
      logger: silentLogger(),
    });
    const serving = await serveHostHttp(host, { port: 0 });
    url = serving.url;
    close = () => serving.close({ graceMs: 0 });
  });
  afterAll(async () => {
    await close?.();
    await host?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("serves the resources to the token with the key's scope and hides them from the other; prompts fail closed", async () => {
    const reader = await connect(url, era, READER);
    const nobody = await connect(url, era, NOBODY);
    try {
      expect(await reach(reader, subscribes)).toEqual({
        uris: expect.arrayContaining([CATALOG, BOOK]),
        templates: [TEMPLATE],
        prompts: [],
        ...expected({ ...RESOURCES_OPEN, ...PROMPTS_DENIED }),
      });
      expect(await reach(nobody, subscribes)).toEqual({
        uris: [],
        templates: [],
        prompts: [],
        ...expected(ALL_DENIED),
      });
    } finally {
      await Promise.all([reader.close(), nobody.close()]);
    }
  });

  it("names the resources' scope among the scopes the protected-resource metadata supports", async () => {
    const metadata = await raw(url, { method: "GET", path: "/.well-known/oauth-protected-resource/mcp" });
    expect(metadata.json()).toMatchObject({ scopes_supported: ["lib:read"] });
    const answer = await raw(url, {
      headers: { authorization: `Bearer ${NOBODY}` },
      body: rpc("resources/read", { uri: CATALOG }),
    });
    expect(answer.text).toContain("PERMISSION_DENIED");
    expect(answer.text).not.toContain("Dune");
  });
});

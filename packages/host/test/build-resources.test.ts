import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { HostError } from "../src/errors/host-error.js";
import { createHost } from "../src/host.js";
import { connectInMemory } from "../src/mcp/connect-in-memory.js";
import { buildRegistry } from "../src/registry/build-registry.js";
import { hashOf } from "../src/registry/lock.js";
import { ECHO, FIXTURES, lockFor, manifestOf, silentLogger } from "./helpers.js";

const LIBRARY = path.join(FIXTURES, "skill-library");

async function failureOf(json: unknown): Promise<HostError> {
  try {
    await buildRegistry(manifestOf(json));
  } catch (error) {
    expect(error).toBeInstanceOf(HostError);
    return error as HostError;
  }
  throw new Error("the registry was built");
}

describe("resources, prompts and SKILL.md in the table", () => {
  it("stops the host when two unprefixed instances serve one URI, one template, one prompt and one skill, naming both", async () => {
    const error = await failureOf({
      skills: [
        {
          path: LIBRARY,
          mcp: "a",
          prefix: false,
          tools: { exclude: ["show_cover", "bad_content", "log_steps", "ask_name", "ask_all"] },
        },
        { path: LIBRARY, mcp: "b", prefix: false, tools: { include: [] } },
      ],
    });
    const problems = error.problems.join("\n");
    expect(problems).toContain(
      'resource "lib://catalog" is served by both skills[0] (fixture-skill-library as "a", resource catalog) and skills[1] (fixture-skill-library as "b", resource catalog)',
    );
    expect(problems).toContain('resource template "lib://books/{id}" is served by both');
    expect(problems).toContain('prompt "summarize_book" is defined by both');
    expect(problems).toContain('skill "skill://library/SKILL.md" is served by both');
    expect(error.message).toContain("cannot start");
  });

  it("serves two prefixed instances of one skill side by side, each under its own mcp id", async () => {
    const registry = await buildRegistry(
      manifestOf({
        skills: [
          { path: LIBRARY, mcp: "a" },
          { path: LIBRARY, mcp: "b" },
        ],
      }),
    );
    expect([...registry.resources.keys()]).toEqual(expect.arrayContaining(["lib://a/catalog", "lib://b/catalog"]));
    expect(registry.templates.find("lib://b/books/3")).toMatchObject({ params: { id: "3" } });
    expect(registry.templates.find("lib://b/books/3")?.entry.instance.id).toBe("b");
    expect([...registry.prompts.keys()]).toEqual(
      expect.arrayContaining(["a.summarize_book", "b.summarize_book", "a.ask_topic"]),
    );
    expect(registry.skillDocs.map((d) => d.uri)).toEqual(["skill://a/library/SKILL.md", "skill://b/library/SKILL.md"]);
  });

  it("filters and renames resources and prompts from the manifest; a name the skill lacks stops the host", async () => {
    const registry = await buildRegistry(
      manifestOf({
        skills: [
          {
            path: LIBRARY,
            resources: { exclude: ["secret", "stuck"], rename: { catalog: "index" } },
            prompts: { include: ["summarize_book"], rename: { summarize_book: "summary" } },
          },
        ],
      }),
    );
    expect(registry.resources.has("lib://library/secret")).toBe(false);
    expect(registry.resourceListings.find((l) => l.uri === "lib://library/catalog")?.name).toBe("index");
    expect([...registry.prompts.keys()]).toEqual(["library.summary"]);
    const error = await failureOf({
      skills: [{ path: LIBRARY, resources: { include: ["nope"] }, prompts: { exclude: ["nada"] } }],
    });
    expect(error.problems).toEqual(
      expect.arrayContaining([
        expect.stringContaining('skills[0].resources.include: skill "library" has no resource "nope"'),
        expect.stringContaining('skills[0].prompts.exclude: skill "library" has no prompt "nada"'),
      ]),
    );
  });

  it("lists resources and prompts from the lock without importing the skill, and imports it on the first read", async () => {
    const manifest = manifestOf({ skills: [{ path: LIBRARY }] });
    const lock = lockFor(manifest, await buildRegistry(manifest));
    expect(lock.instances[0]?.skill.prompts?.map((p) => p.name)).toEqual(["summarize_book", "ask_topic"]);
    const host = await createHost({ manifest, logger: silentLogger() });
    const fromLock = await buildRegistry(manifest, { lock });
    expect(fromLock.fromLock).toBe(true);
    expect(fromLock.instances[0]?.loaded).toBe(false);
    expect(fromLock.promptListings.map((p) => p.name)).toEqual(["library.summarize_book", "library.ask_topic"]);
    const entry = fromLock.templates.find("lib://library/books/2")?.entry;
    await entry?.resolve();
    expect(fromLock.instances[0]?.loaded).toBe(true);
    await host.close();
  });

  it("answers UNAVAILABLE for a read when the lock was edited to describe another resource surface", async () => {
    const manifest = manifestOf({ skills: [{ path: LIBRARY }] });
    const lock = lockFor(manifest, await buildRegistry(manifest));
    const locked = lock.instances[0];
    if (locked?.skill.resources === undefined) throw new Error("the lock has no resources");
    // An edit that keeps the lock's own hash consistent, as an attacker rewriting the file would.
    (locked.skill.resources[0] as { description?: string }).description = "edited";
    locked.hash = hashOf(locked.skill);
    const registry = await buildRegistry(manifest, { lock });
    const entry = registry.resources.get("lib://library/catalog");
    await expect(entry?.resolve()).rejects.toThrow(/differ from skills.lock.json/);
  });

  it("keeps the lock hash of a tools-only skill as it was: no empty resource fields in its surface", async () => {
    const manifest = manifestOf({ skills: [{ path: ECHO }] });
    const lock = lockFor(manifest, await buildRegistry(manifest));
    expect(Object.keys(lock.instances[0]?.skill ?? {}).sort()).toEqual([
      "configSchema",
      "credentials",
      "description",
      "name",
      "tools",
    ]);
  });
});

describe("isolated instances read, render and ask in their isolate", () => {
  it.each(["worker", "process"] as const)(
    "with isolation %s",
    async (isolation) => {
      const dir = await mkdtemp(path.join(os.tmpdir(), "skillport-isolated-resources-"));
      const record = path.join(dir, "record.log");
      await writeFile(record, ""); // a sandboxed child may write only to config paths that exist
      const host = await createHost({
        manifest: manifestOf({
          skills: [{ path: LIBRARY, isolation, config: { record } }],
          audit: { file: path.join(dir, "audit.log") },
        }),
        logger: silentLogger(),
      });
      const client = new Client({ name: "t", version: "0" }, { capabilities: { elicitation: { form: {} } } });
      client.setRequestHandler("elicitation/create", async (request) => {
        const content: Record<string, string> = request.params.message.startsWith("What")
          ? { name: "Iso" }
          : { color: "grey" };
        return { action: "accept", content };
      });
      await client.connect(await connectInMemory(host));
      try {
        const where = await client.readResource({ uri: "lib://library/thread" });
        const text = (where.contents[0] as { text: string }).text;
        if (isolation === "worker") expect(text).toBe(`worker ${process.pid}`);
        else expect(text).not.toContain(String(process.pid));
        const rendered = await client.getPrompt({ name: "library.summarize_book", arguments: { id: "3" } });
        expect(rendered.messages).toHaveLength(2);
        const completion = await client.complete({
          ref: { type: "ref/resource", uri: "lib://library/books/{id}" },
          argument: { name: "id", value: "1" },
        });
        expect(completion.completion.values).toEqual(["1", "12"]);
        const asked = await client.callTool({ name: "library.ask_name", arguments: { run: isolation } });
        expect(asked.structuredContent).toMatchObject({ ok: true, data: { greeting: "Hello Iso, who likes grey" } });
        const runs = (await readFile(record, "utf8")).split("\n").filter((l) => l.endsWith(` ${isolation}`));
        expect(runs).toEqual([`run ${isolation}`, `run ${isolation}`, `run ${isolation}`, `done ${isolation}`]);
        const stuck = await client.readResource({ uri: "lib://library/stuck" }).catch((error: Error) => error);
        expect(String(stuck)).toContain("TIMEOUT");
        // The isolate that was stuck is replaced: the next read answers.
        const again = await client.readResource({ uri: "lib://library/catalog" });
        expect(again.contents).toHaveLength(1);
      } finally {
        await client.close();
        await host.close();
        await rm(dir, { recursive: true, force: true });
      }
    },
    30_000,
  );
});

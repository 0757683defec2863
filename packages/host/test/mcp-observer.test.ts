import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { defineSkill, defineTool, SkillError } from "@skillport/core";
import { describe, expect, it } from "vitest";
import { createHost } from "../src/host.js";
import { connectInMemory } from "../src/mcp/connect-in-memory.js";
import { createServerFactory } from "../src/mcp/server.js";
import type { CallObserver } from "../src/mcp/tools-core.js";
import { createConfirmations } from "../src/pipeline/confirmations.js";
import { createPipeline } from "../src/pipeline/pipeline.js";
import { buildRegistry } from "../src/registry/build-registry.js";
import type { LockFile } from "../src/registry/lock.js";
import { hashOf } from "../src/registry/lock.js";
import type { Registry } from "../src/registry/registry.js";
import { BROKEN_IMPORT, ECHO, lockFor, manifestOf, silentLogger } from "./helpers.js";

const busy = defineSkill({
  name: "busy",
  tools: [
    defineTool({
      name: "check_vault",
      title: "Check vault",
      description: "Answers UNAVAILABLE itself, as a tool does when what it needs is missing.",
      input: { type: "object", properties: {}, additionalProperties: false },
      risk: "read_only",
      run: () => {
        throw new SkillError({ code: "UNAVAILABLE", message: "the vault folder does not exist" });
      },
    }),
  ],
});

/** A host whose broken skill starts from a lock (so it fails on its first call), and a skill answering UNAVAILABLE. */
async function hostWithFailures() {
  const echoOnly = manifestOf({ skills: [{ path: ECHO }] });
  const echoLock = lockFor(echoOnly, (await createHost({ manifest: echoOnly, logger: silentLogger() })).registry);
  const echoLocked = echoLock.instances[0];
  if (echoLocked === undefined) throw new Error("no lock");
  const brokenSurface = { ...echoLocked.skill, name: "broken", tools: echoLocked.skill.tools.slice(0, 1) };
  const busyOnly = manifestOf({ skills: [{ package: "skill-busy" }] });
  const busyHost = await createHost({
    manifest: busyOnly,
    modules: { "skill-busy": { register: busy } },
    logger: silentLogger(),
  });
  const busyLocked = lockFor(busyOnly, busyHost.registry).instances[0];
  if (busyLocked === undefined) throw new Error("no lock");
  const lock: LockFile = {
    lockfileVersion: 1,
    instances: [
      {
        entry: 0,
        source: BROKEN_IMPORT,
        package: "fixture-skill-broken-import",
        version: "0.0.1",
        hash: hashOf(brokenSurface),
        skill: brokenSurface,
      },
      { ...busyLocked, entry: 1 },
    ],
  };
  const manifest = manifestOf({ skills: [{ path: BROKEN_IMPORT, mcp: "broken" }, { package: "skill-busy" }] });
  const base = await createHost({ manifest, modules: { "skill-busy": { register: busy } }, logger: silentLogger() });
  const registry = await buildRegistry(manifest, { modules: { "skill-busy": { register: busy } }, lock });
  const pipeline = createPipeline(registry, {
    logger: base.logger,
    redactor: base.redactor,
    audit: () => undefined,
    confirmations: createConfirmations(),
  });
  return { ...base, registry, pipeline };
}

/** A client connected to the host's SDK server (no fast path in front), and what the server's observer heard. */
async function observed(host: Parameters<typeof createServerFactory>[0]) {
  const seen: Parameters<CallObserver["finished"]>[] = [];
  const factory = createServerFactory(host, {
    observer: { started: () => undefined, finished: (...args) => seen.push(args) },
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await factory().connect(serverSide);
  const client = new Client({ name: "observer-test", version: "0.0.0" });
  await client.connect(clientSide);
  return { client, seen };
}

describe("the MCP layer's call observer", () => {
  it("tells a skill that could not load (ensure-loaded) from a tool answering UNAVAILABLE itself (execute)", async () => {
    const { client, seen } = await observed(await hostWithFailures());
    try {
      await client.callTool({ name: "broken.echo", arguments: { text: "x" } });
      await client.callTool({ name: "busy.check_vault", arguments: {} });
      await expect(client.callTool({ name: "busy.nope", arguments: {} })).rejects.toThrow(/unknown tool/);
    } finally {
      await client.close();
    }
    expect(seen.map(([tool, skill, outcome, , stage]) => [tool, skill, outcome, stage])).toEqual([
      ["broken.echo", "broken", "UNAVAILABLE", "ensure-loaded"],
      ["busy.check_vault", "busy", "UNAVAILABLE", "execute"],
      ["(unknown)", undefined, "UNKNOWN_TOOL", "lookup"],
    ]);
  });
});

describe("a call whose pipeline fails under it", () => {
  /** A host whose tool table breaks once a call looks a tool up: tools/list still answers from the registry. */
  async function hostWithBrokenTable() {
    const manifest = manifestOf({ skills: [{ path: ECHO }] });
    const base = await createHost({ manifest, logger: silentLogger() });
    const broken = {
      ...base.registry,
      tools: {
        get: () => {
          throw new Error("the tool table is broken");
        },
      },
    } as unknown as Registry;
    const pipeline = createPipeline(broken, {
      logger: base.logger,
      redactor: base.redactor,
      audit: () => undefined,
      confirmations: createConfirmations(),
    });
    return { ...base, pipeline };
  }

  it("answers a JSON-RPC error on the fast path and keeps serving", async () => {
    const client = new Client({ name: "observer-test", version: "0.0.0" });
    await client.connect(await connectInMemory(await hostWithBrokenTable()));
    try {
      await expect(client.callTool({ name: "echo.echo", arguments: { text: "x" } })).rejects.toThrow(
        "the tool table is broken",
      );
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("echo.echo");
    } finally {
      await client.close();
    }
  });

  it("tells the observer INTERNAL at the error stage, through the SDK's handler", async () => {
    const { client, seen } = await observed(await hostWithBrokenTable());
    try {
      await expect(client.callTool({ name: "echo.echo", arguments: { text: "x" } })).rejects.toThrow(
        "the tool table is broken",
      );
    } finally {
      await client.close();
    }
    expect(seen.map(([tool, skill, outcome, , stage]) => [tool, skill, outcome, stage])).toEqual([
      ["echo.echo", undefined, "INTERNAL", "error"],
    ]);
  });
});

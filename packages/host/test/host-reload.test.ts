import { writeFile } from "node:fs/promises";
import path from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { defineSkill, defineTool } from "@skillport/core";
import { describe, expect, it, onTestFinished } from "vitest";
import { HostError } from "../src/errors/host-error.js";
import { createHost } from "../src/host.js";
import { connectInMemory } from "../src/mcp/connect-in-memory.js";
import { listsChanged } from "../src/mcp/server.js";
import type { Registry } from "../src/registry/registry.js";
import { manifestOf, scratch, silentLogger } from "./helpers.js";

/** A reloadable host over a manifest file of one skill whose tool waits for the test, and a client connected to it. */
async function reloadable() {
  const dir = await scratch("skillport-reload-");
  const file = path.join(dir, "skills.manifest.json");
  const write = (manifest: unknown) => writeFile(file, JSON.stringify(manifest));
  const manifestAs = (mcp: unknown) => ({ name: "r", version: "1.0.0", skills: [{ package: "skill-wait", mcp }] });
  await write(manifestAs("w"));
  let release: (value: string) => void = () => undefined;
  const gate = new Promise<string>((resolve) => {
    release = resolve;
  });
  let started: () => void = () => undefined;
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  const register = defineSkill({
    name: "wait",
    version: "1.0.0",
    tools: [
      defineTool({
        name: "wait",
        title: "Wait",
        description: "Answers what the test lets it.",
        input: { type: "object", properties: {}, additionalProperties: false },
        risk: "read_only",
        run: async () => {
          started();
          return { got: await gate };
        },
      }),
    ],
  });
  const host = await createHost({
    manifest: file,
    modules: { "skill-wait": { register } },
    logger: silentLogger(),
    reloadable: true,
  });
  onTestFinished(() => host.close());
  const client = new Client({ name: "reload-test", version: "0.0.0" });
  await client.connect(await connectInMemory(host));
  onTestFinished(() => client.close());
  return { host, client, rename: (mcp: unknown) => write(manifestAs(mcp)), release, running };
}

describe("Host.reload", () => {
  it("swaps the table: the client hears tools/list_changed and lists the new tools; a call in flight ends on the old", async () => {
    const { host, client, rename, release, running } = await reloadable();
    expect(client.getServerCapabilities()?.tools?.listChanged).toBe(true);
    expect(client.getServerCapabilities()?.prompts?.listChanged).toBe(true);
    const changed = new Promise<void>((resolve) =>
      client.setNotificationHandler("notifications/tools/list_changed", () => resolve()),
    );
    const call = client.callTool({ name: "w.wait", arguments: {} });
    await running;
    const before = host.registry;
    await rename("w2");
    const swap = await host.reload();
    expect(swap.previous).toBe(before);
    expect(host.registry).toBe(swap.current);
    await changed;
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["w2.wait"]);
    release("the old table");
    expect((await call).structuredContent).toMatchObject({ ok: true, data: { got: "the old table" } });
    await expect(client.callTool({ name: "w.wait", arguments: {} })).rejects.toThrow(/w\.wait/);
    expect((await client.callTool({ name: "w2.wait", arguments: {} })).structuredContent).toMatchObject({ ok: true });
  });

  it("keeps the table in place when the manifest has a problem, and says where", async () => {
    const { host, client, rename } = await reloadable();
    const before = host.registry;
    await rename(7);
    const failed = host.reload();
    await expect(failed).rejects.toBeInstanceOf(HostError);
    await expect(failed).rejects.toThrow(/skills\[0\]\.mcp/);
    expect(host.registry).toBe(before);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["w.wait"]);
  });

  it("lets go of a connection's swap listener once the connection closed", async () => {
    const { host } = await reloadable();
    const live = new Set<unknown>();
    const onSwap = host.onSwap.bind(host);
    host.onSwap = (listener) => {
      const off = onSwap(listener);
      live.add(listener);
      return () => {
        live.delete(listener);
        return off();
      };
    };
    const before = live.size;
    for (let i = 0; i < 3; i++) {
      const client = new Client({ name: "short-lived", version: "0.0.0" });
      await client.connect(await connectInMemory(host));
      expect(live.size).toBe(before + 1);
      await client.close();
      expect(live.size).toBe(before);
    }
  });

  it("is not declared by a host that does not reload: its servers say listChanged false", async () => {
    const host = await createHost({
      manifest: manifestOf({ name: "n", version: "1.0.0", skills: [] }),
      logger: silentLogger(),
    });
    onTestFinished(() => host.close());
    const client = new Client({ name: "reload-test", version: "0.0.0" });
    await client.connect(await connectInMemory(host));
    onTestFinished(() => client.close());
    expect(client.getServerCapabilities()?.tools?.listChanged).toBe(false);
    expect(host.reloadable).toBe(false);
  });
});

describe("Pipeline.settled", () => {
  it("resolves once the calls running have answered", async () => {
    const { host, release, running } = await reloadable();
    await host.pipeline.settled(); // none running: at once
    const call = host.pipeline.call("w.wait", {});
    await running;
    let settled = false;
    const idle = host.pipeline.settled().then(() => {
      settled = true;
    });
    await Promise.resolve();
    expect(settled).toBe(false);
    release("done");
    await call;
    await idle;
    expect(settled).toBe(true);
  });
});

describe("listsChanged", () => {
  const table = (lists: Partial<Registry>) =>
    ({
      resourceListings: [],
      templateListings: [],
      promptListings: [],
      skillDocs: [],
      ...lists,
    }) as unknown as Registry;
  const prompt = { name: "p.brief", title: "Brief", description: "A brief.", arguments: [] };

  it("tells resources and prompts apart, and says nothing when neither changed", () => {
    expect(listsChanged({ previous: table({}), current: table({}) })).toEqual({ resources: false, prompts: false });
    expect(listsChanged({ previous: table({}), current: table({ promptListings: [prompt] }) })).toEqual({
      resources: false,
      prompts: true,
    });
    const doc = (description: string) => ({
      instance: {},
      base: "skill://p/",
      name: "p",
      description,
      uri: "u",
      dir: "d",
    });
    expect(
      listsChanged({
        previous: table({ skillDocs: [doc("old")] as never }),
        current: table({ skillDocs: [doc("new")] as never }),
      }),
    ).toEqual({ resources: true, prompts: false });
    // A SKILL.md is compared by what clients see of it, not by the instance it belongs to (a new object each table).
    expect(
      listsChanged({
        previous: table({ skillDocs: [{ ...doc("same"), instance: { a: 1 } }] as never }),
        current: table({ skillDocs: [{ ...doc("same"), instance: { b: 2 } }] as never }),
      }),
    ).toEqual({ resources: false, prompts: false });
  });
});

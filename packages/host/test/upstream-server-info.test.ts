import { describe, expect, it } from "vitest";
import type { UpstreamHandle, UpstreamServerInfo, UpstreamTool } from "../src/entries/upstream-client.js";
import { createHost } from "../src/host.js";
import { manifestOf, silentLogger } from "./helpers.js";

// An upstream server is named, in list and audit lines and in meta.toolVersion, as it names itself in its handshake
// (its serverInfo), never by its command line; a server that gives no name is called by its entry's mcp id. The CLI's
// upstream-reference.test.ts shows the same with the official filesystem server, through list, call and lock.

const TOOLS: UpstreamTool[] = [{ name: "echo", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } }];

const handleOf = (server: UpstreamServerInfo | undefined) => (): UpstreamHandle => ({
  start: async () => (server === undefined ? { ok: true, tools: TOOLS } : { ok: true, tools: TOOLS, server }),
  stop: async () => undefined,
  callTool: async () => ({ ok: true, result: { content: [{ type: "text", text: "hi" }] } }),
  state: { value: "ready", tools: TOOLS, subscribe: () => () => undefined },
});

async function namedAs(server: UpstreamServerInfo | undefined) {
  const host = await createHost({
    manifest: manifestOf({
      skills: [],
      servers: [{ mcp: "up", command: "npx", args: ["-y", "@example/a-server-with-a-long-package-name@1.2.3", "./x"] }],
    }),
    logger: silentLogger(),
    client: async () => ({ connect: handleOf(server), linearRegExp: (pattern, flags) => new RegExp(pattern, flags) }),
  });
  try {
    const instance = host.registry.tools.get("up.echo")?.instance;
    const outcome = await host.pipeline.call("up.echo", {});
    return {
      name: instance?.packageName,
      version: instance?.version,
      toolVersion: (outcome.envelope.meta as { toolVersion: string }).toolVersion,
    };
  } finally {
    await host.close();
  }
}

describe("an upstream server's name", () => {
  it("is its serverInfo's name and version", async () => {
    expect(await namedAs({ name: "a-server", version: "0.4.1" })).toEqual({
      name: "a-server",
      version: "0.4.1",
      toolVersion: "0.4.1",
    });
  });

  it("is its mcp id when it gives none, never its command line", async () => {
    expect(await namedAs(undefined)).toEqual({ name: "up", version: "unknown", toolVersion: "unknown" });
  });

  it("is kept short when the server's is long", async () => {
    const named = await namedAs({ name: "n".repeat(200), version: "1.0.0" });
    expect(named.name).toBe(`${"n".repeat(60)}…`);
  });
});

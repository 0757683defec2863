import { Client } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { createHost } from "../src/host.js";
import { connectInMemory } from "../src/mcp/connect-in-memory.js";
import { ECHO, manifestOf, silentLogger } from "./helpers.js";

describe("connectInMemory", () => {
  it("serves a host to an SDK client in the same process", async () => {
    const host = await createHost({ manifest: manifestOf({ skills: [{ path: ECHO }] }), logger: silentLogger() });
    const client = new Client({ name: "test", version: "0.0.0" });
    await client.connect(await connectInMemory(host));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain("echo.echo");
      const result = await client.callTool({ name: "echo.echo", arguments: { text: "hi", times: 2 } });
      expect(result.structuredContent).toMatchObject({ ok: true, data: { echoed: "hihi" } });
    } finally {
      await client.close();
    }
  });
});

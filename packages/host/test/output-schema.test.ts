import { Client } from "@modelcontextprotocol/client";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/client/validators/ajv";
import { defineSkill, defineTool } from "@skillport/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createHost } from "../src/host.js";
import { connectInMemory } from "../src/mcp/connect-in-memory.js";
import { ECHO, manifestOf, silentLogger } from "./helpers.js";

const register = defineSkill({
  name: "typed",
  tools: [
    defineTool({
      name: "count",
      title: "Count",
      description: "Count the words of a text.",
      input: z.strictObject({ text: z.string().max(200) }),
      output: z.strictObject({ words: z.number().int(), longest: z.string() }),
      risk: "read_only",
      run: ({ text }) => {
        const words = text.split(/\s+/).filter(Boolean);
        return { words: words.length, longest: words.reduce((a, b) => (b.length > a.length ? b : a), "") };
      },
    }),
  ],
});

/** An SDK client over a host serving a tool with a declared output and the echo fixture (no declared output). */
async function connected() {
  const host = await createHost({
    manifest: manifestOf({ skills: [{ package: "skill-typed" }, { path: ECHO }] }),
    modules: { "skill-typed": { register } },
    logger: silentLogger(),
  });
  const client = new Client({ name: "test", version: "0.0.0" });
  await client.connect(await connectInMemory(host));
  return { host, client };
}

describe("the output schema every tool advertises", () => {
  it("is a compact envelope: the tool's data schema plus at most 400 bytes, whatever the tool", async () => {
    const { host, client } = await connected();
    try {
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThan(1);
      for (const tool of tools) {
        const schema = tool.outputSchema as { properties: { data: unknown } };
        expect(schema).toMatchObject({ type: "object", required: ["ok", "message", "meta"] });
        const envelopeBytes = JSON.stringify(schema).length - JSON.stringify(schema.properties.data).length;
        expect({ tool: tool.name, envelopeBytes: envelopeBytes <= 400 }).toEqual({
          tool: tool.name,
          envelopeBytes: true,
        });
      }
    } finally {
      await client.close();
      await host.close();
    }
  });

  it("is what the official SDK client validates structuredContent against: answers pass, broken envelopes fail", async () => {
    const { host, client } = await connected();
    try {
      const { tools } = await client.listTools();
      const count = tools.find((t) => t.name === "typed.count");
      if (count?.outputSchema === undefined) throw new Error("typed.count advertises no output schema");
      // The client validates every structured answer against the advertised schema: an invalid one throws here.
      const ok = await client.callTool({ name: "typed.count", arguments: { text: "a compact envelope" } });
      expect(ok.structuredContent).toMatchObject({ ok: true, data: { words: 3, longest: "envelope" } });
      const refused = await client.callTool({ name: "typed.count", arguments: { text: 42 } });
      expect(refused.structuredContent).toMatchObject({ ok: false, error: { code: "ARGUMENT_INVALID" } });

      // The same validator the client uses, on the same schema: what a server must not send is refused.
      const check = new AjvJsonSchemaValidator().getValidator(count.outputSchema);
      expect(check(ok.structuredContent).valid).toBe(true);
      expect(check(refused.structuredContent).valid).toBe(true);
      const answer = ok.structuredContent as Record<string, unknown>;
      const broken = [
        { ...answer, data: { words: "three", longest: "envelope" } },
        { ...answer, data: { words: 3 } },
        { ...answer, ok: "yes" },
        { ...answer, message: undefined },
        { ...answer, meta: undefined },
        { ...answer, error: "failed" },
        { ...(refused.structuredContent as Record<string, unknown>), error: { code: "ARGUMENT_INVALID" } },
      ].map((value) => JSON.parse(JSON.stringify(value)));
      for (const value of broken) expect({ value, valid: check(value).valid }).toEqual({ value, valid: false });
    } finally {
      await client.close();
      await host.close();
    }
  });
});

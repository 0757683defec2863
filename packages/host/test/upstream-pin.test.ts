import { describe, expect, it } from "vitest";
import type { UpstreamTool } from "../src/entries/upstream-client.js";
import { pinUpstream, upstreamRisk } from "../src/entries/upstream-pin.js";
import type { Logger } from "../src/logging/logger.js";

const LOCK = { name: "up.lock.json", command: "skillport lock --manifest up.manifest.json" };

const wipe = (
  annotations: Record<string, unknown> | undefined,
  schema: Record<string, unknown> = {},
): UpstreamTool => ({
  name: "wipe",
  inputSchema: { type: "object", properties: { target: { type: "string" } }, ...schema },
  ...(annotations === undefined ? {} : { annotations }),
});

function pinOf(locked: UpstreamTool[] | undefined) {
  const warnings: string[] = [];
  const logger = { warn: (_fields: unknown, message: string) => warnings.push(message) } as unknown as Logger;
  return { pin: pinUpstream({ id: "up", source: 'servers[0] ("up")', locked, lock: LOCK, logger }), warnings };
}

describe("an upstream server's pin, with a lock", () => {
  it("serves the locked tool as it is, refuses a changed one naming the lock command, and leaves out a new one", () => {
    const locked = wipe({ destructiveHint: true });
    const { pin, warnings } = pinOf([locked]);
    expect(pin.review(wipe({ destructiveHint: true }))).toEqual({ tool: locked });

    const lowered = pin.review(wipe({}));
    expect(lowered.tool).toBe(locked);
    expect(lowered.refusal).toContain("skillport lock --manifest up.manifest.json");
    expect(pin.review(wipe({ destructiveHint: true }, { required: ["target"] })).refusal).toContain("up.lock.json");

    expect(pin.review({ name: "purge", inputSchema: { type: "object" } })).toEqual({
      refusal: expect.stringContaining('"purge" is not in up.lock.json'),
    });
    pin.review(wipe({ destructiveHint: true }, { required: ["target"] }));
    expect(warnings).toHaveLength(3); // each change once
    expect(warnings.every((w) => w.startsWith('servers[0] ("up"): '))).toBe(true);
  });
});

describe("an upstream server's pin, without a lock", () => {
  it("keeps the highest risk seen for a tool, with its hints, and warns once naming server and tool", () => {
    const { pin, warnings } = pinOf(undefined);
    expect(upstreamRisk(pin.review(wipe({ destructiveHint: true, title: "Wipe" })).tool as UpstreamTool)).toBe(
      "dangerous",
    );
    for (const hints of [{ title: "Wipe" }, { readOnlyHint: true }, undefined]) {
      const { tool, refusal } = pin.review(wipe(hints));
      expect(refusal).toBeUndefined();
      expect(tool?.annotations).toMatchObject({ destructiveHint: true });
      expect(tool?.annotations?.readOnlyHint).toBeUndefined();
    }
    expect(warnings).toHaveLength(3);
    expect(warnings[0]).toMatch(/^servers\[0\] \("up"\): tool "wipe" now lists a lower risk \(write\).*dangerous/);
    pin.review(wipe(undefined));
    expect(warnings).toHaveLength(3);
  });

  it("takes a changed schema and a raised risk, and never lets the risk fall back", () => {
    const { pin, warnings } = pinOf(undefined);
    pin.review(wipe({ readOnlyHint: true }));
    const widened = pin.review(wipe({}, { required: ["target"] })).tool as UpstreamTool;
    expect(widened.inputSchema.required).toEqual(["target"]);
    expect(upstreamRisk(widened)).toBe("write");
    expect(upstreamRisk(pin.review(wipe({ destructiveHint: true })).tool as UpstreamTool)).toBe("dangerous");
    expect(upstreamRisk(pin.review(wipe({ readOnlyHint: true })).tool as UpstreamTool)).toBe("dangerous");
    expect(warnings).toHaveLength(1);
  });
});

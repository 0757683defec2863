import { describe, expect, it } from "vitest";
import type { ServeOptions } from "../src/commands/serve.js";
import { buildProgram } from "../src/program.js";
import { quickServeOptions } from "../src/serve-args.js";

const DEFAULT = "skills.manifest.json";

/** What commander hands serve for these arguments, or undefined when it refuses them (or prints help). */
async function commanderReads(args: string[]): Promise<ServeOptions | undefined> {
  let seen: ServeOptions | undefined;
  const { program } = buildProgram(async (options) => {
    seen = { ...options };
    return 0;
  });
  program.configureOutput({ writeOut: () => undefined, writeErr: () => undefined });
  try {
    await program.parseAsync(["node", "skillport", "serve", ...args]);
  } catch {
    return undefined;
  }
  return seen;
}

// serve's own reading of its flags (no commander at start-up) must hand serve what commander would, or step aside.
describe("quickServeOptions", () => {
  const lines: string[][] = [
    [],
    ["--stdio"],
    ["--stdio", "--frozen-lock"],
    ["--stdio", "--manifest", "app.manifest.json"],
    ["--stdio", "-m", "app.manifest.json", "--banner"],
    ["-mapp.manifest.json"],
    ["--manifest=app.manifest.json", "--frozen-lock"],
    ["--manifest", "a.json", "--manifest", "b.json"],
    ["--manifest", ""],
    ["--http", "--port", "0", "--host", "0.0.0.0", "--path", "/mcp2", "--shutdown-grace", "250"],
    ["--http", "--port=3333"],
    ["--stdio", "--http"],
    ["--stdio", "--log-level", "debug"],
    ["--log-level=silent"],
  ];
  const declined: string[][] = [
    ["--no-lock"],
    ["--stdio", "--no-lock", "--frozen-lock"],
    ["--help"],
    ["-h"],
    ["--port", "12ab"],
    ["--port", "-1"],
    ["--port", "1.5"],
    ["--shutdown-grace", ""],
    ["--manifest", "-x"],
    ["--manifest"],
    ["--stdio=yes"],
    ["--unknown"],
    ["extra"],
    ["--", "--stdio"],
    ["--version"],
    ["--log-level", "loud"],
  ];

  it.each(lines)("reads %j as commander does", async (...args) => {
    const quick = quickServeOptions(args, DEFAULT);
    expect(quick).toBeDefined();
    expect(quick).toEqual(await commanderReads(args));
  });

  it.each(declined)("leaves %j to commander", async (...args) => {
    expect(quickServeOptions(args, DEFAULT)).toBeUndefined();
  });
});

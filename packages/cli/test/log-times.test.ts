import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Workspace } from "./workspace.js";
import { connectStdio, makeWorkspace, REPO } from "./workspace.js";

// The server's log lines and its audit lines share stderr: one stream, one time format (ISO 8601), so a person or a
// log store reads every line's time alike.

const ECHO = path.join(REPO, "packages/host/test/fixtures/skill-echo");
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let ws: Workspace;
beforeEach(async () => {
  ws = await makeWorkspace();
});
afterEach(async () => {
  await ws.dispose();
});

describe("the lines on stderr", () => {
  it("log and audit alike, carry their time in ISO 8601", async () => {
    const manifest = await ws.writeManifest({ skills: [{ path: ECHO }] }, "echo.manifest.json");
    const served = await connectStdio(manifest, ws.dir, { env: { SKILLPORT_LOG_LEVEL: "info" } });
    await served.ready;
    await served.client.callTool({ name: "echo.echo", arguments: { text: "hi" } });
    await served.client.close();
    const lines = served
      .stderr()
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as { time: unknown; kind?: string; msg?: string });
    expect(lines.some((line) => line.kind === "audit")).toBe(true);
    expect(lines.some((line) => line.kind !== "audit")).toBe(true);
    for (const line of lines) expect(line.time, JSON.stringify(line)).toMatch(ISO);
  });
});

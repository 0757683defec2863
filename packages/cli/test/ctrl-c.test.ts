import path from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { untilLines } from "@skillport/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Workspace } from "./workspace.js";
import { makeWorkspace, REPO, serveHttp } from "./workspace.js";

const PROBE_SKILL = path.join(REPO, "packages/host/test/fixtures/skill-probe");

// `pnpm start` and its Ctrl+C are tested in the authoring flow's clone (authoring-flow.test.ts): there turbo's cache
// restore rewrites the clone's build output, not the one this checkout's other test files are running.

describe("skillport serve --http and stop signals", () => {
  let ws: Workspace;
  let manifest: string;
  let record: string;

  beforeAll(async () => {
    ws = await makeWorkspace();
    record = path.join(ws.dir, "record.log");
    manifest = await ws.writeManifest({ skills: [{ path: PROBE_SKILL, config: { record } }] }, "probe.manifest.json");
  });
  afterAll(() => ws?.dispose());

  /** Resolves once the probe has recorded `line`. */
  const recorded = (line: string) => untilLines(record, (lines) => lines.includes(line));

  it("takes one Ctrl+C delivered twice (by the terminal, then by a wrapper forwarding it) as one", async () => {
    const served = serveHttp(["--manifest", manifest], ws.dir, { SKILLPORT_LOG_LEVEL: "info" });
    const client = await connect(await served.url);
    const slow = client.callTool({ name: "probe.sleep", arguments: { id: "twice", ms: 3_000 } });
    await recorded("started twice");
    // pnpm, npm and npx forward the signal the terminal already sent their child: it arrives as the server stops.
    served.child.stderr?.on("data", (d: Buffer) => {
      if (d.toString().includes("finishing in-flight calls")) served.child.kill("SIGINT");
    });
    served.child.kill("SIGINT");
    expect(await served.exit, served.stderr()).toBe(0);
    expect(served.stderr()).not.toContain("again");
    expect((await slow).structuredContent).toMatchObject({ ok: true });
    await client.close();
  });

  it("stops at once, exit 1, on a second Ctrl+C while in-flight calls finish", async () => {
    const served = serveHttp(["--manifest", manifest], ws.dir, { SKILLPORT_LOG_LEVEL: "info" });
    const client = await connect(await served.url);
    const slow = client.callTool({ name: "probe.sleep", arguments: { id: "slow", ms: 60_000 } }).catch(() => undefined);
    await recorded("started slow");
    served.child.kill("SIGINT");
    await served.stderrUntil((text) => text.includes("finishing in-flight calls"));
    // Well after the first, as a person presses again: a second signal within 500 ms of the first is the same press
    // delivered twice (the test above), so this wait is the subject, on the server's own clock.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    served.child.kill("SIGINT");
    expect(await served.exit).toBe(1);
    expect(served.stderr()).toContain("SIGINT again: stopping now");
    await slow;
    await client.close().catch(() => undefined);
  });
});

// --- internal ---

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: "ctrl-c", version: "0.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

// Property: whatever a client sends as tools/call (any name, any arguments, any `_meta`, any valid id), the fast
// path (host mcp/fast-tools.ts) answers it exactly as the SDK's server does, and takes exactly the requests its
// contract calls plain. Each generated request is sent twice to one real `skillport serve --stdio` process: as
// generated, and with one more `_meta` key the fast path leaves to the SDK, unread; the two answers must be equal
// (trace ids and durations aside). The server's close line says how many calls the fast path ran.
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { comparable, isPlain, requestArb, SDK_PATH_META, textOf } from "./generated-calls.js";
import type { Message, RawServer, Workspace } from "./workspace.js";
import { initialize, initialized, makeWorkspace, REPO, serveRaw } from "./workspace.js";

const ECHO = path.join(REPO, "packages/host/test/fixtures/skill-echo");

let ws: Workspace;
let server: RawServer;

beforeAll(async () => {
  ws = await makeWorkspace();
  const manifest = await ws.writeManifest(
    { name: "fast-path-property", version: "1.0.0", skills: [{ path: ECHO, mcp: "echo" }] },
    "property.manifest.json",
  );
  server = serveRaw(manifest, ws.dir, { SKILLPORT_LOG_LEVEL: "debug" });
  server.send(initialize(0));
  await server.next((m) => m.id === 0);
  server.send(initialized);
});
afterAll(async () => {
  await server?.close();
  await ws?.dispose();
});

/** Sends one line and waits for the answer to `id` (the lines read so far are dropped: one request at a time). */
async function ask(line: string, id: unknown): Promise<Message> {
  server.lines.length = 0;
  server.child.stdin.write(`${line}\n`);
  return server.next((m) => m.method === undefined && JSON.stringify(m.id) === JSON.stringify(id));
}

describe("the fast path against the SDK's server, on generated tools/call requests (2025 era, stdio)", () => {
  it("answers every request as the SDK does, and takes exactly the plain ones", async () => {
    let plain = 0;
    let sent = 0;
    await fc.assert(
      fc.asyncProperty(requestArb, async (request) => {
        const fast = await ask(textOf(request.id, request), request.id);
        const sdkId = `sdk-${sent++}`;
        const sdk = await ask(textOf(sdkId, request, SDK_PATH_META), sdkId);
        if (isPlain(request)) plain++;
        expect(comparable(fast)).toEqual(comparable(sdk));
      }),
      { numRuns: 250 },
    );
    // The close line counts the calls the fast path ran: exactly the plain ones, none handed back to the SDK.
    await server.close();
    const close = server
      .stderr()
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as { msg?: string; fastPath?: { calls: number; handedOver: number } })
      .find((entry) => entry.msg === "stdio connection closed");
    expect(close?.fastPath).toMatchObject({ calls: plain, handedOver: 0 });
    expect(plain).toBeGreaterThan(20);
  });
});

import type { ChildProcess } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Workspace } from "./workspace.js";
import { connectStdio, makeWorkspace, REPO, runNode } from "./workspace.js";

// Audit lines are batched (one write per turn of the event loop, off the answer's path). None may be lost when
// the server stops: not when its client closes stdin, not on SIGTERM, not when the process exits without closing.

const ECHO = path.join(REPO, "packages/host/test/fixtures/skill-echo");
const CALLS = 240;
const AT_ONCE = 40;

let ws: Workspace;
let manifest: string;
beforeEach(async () => {
  ws = await makeWorkspace();
  manifest = await ws.writeManifest(
    { name: "audit-shutdown", version: "1.0.0", audit: { file: "./audit.log" }, skills: [{ path: ECHO }] },
    "audit.manifest.json",
  );
});
afterEach(async () => {
  await ws.dispose();
});

const auditLines = async () =>
  (await readFile(path.join(ws.dir, "audit.log"), "utf8").catch(() => "")).split("\n").filter(Boolean);

/** The server process behind the SDK's transport, to signal it and read how it exited. */
function processOf(transport: unknown): ChildProcess {
  const child = (transport as { _process?: ChildProcess })._process;
  if (child === undefined) throw new Error("the SDK's StdioClientTransport no longer exposes its child process");
  return child;
}

/** `skillport serve --stdio` with CALLS echo calls made, AT_ONCE at a time, so lines share a turn. */
async function servedAndCalled() {
  const served = await connectStdio(manifest, ws.dir);
  await served.ready;
  const child = processOf(served.transport);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  for (let done = 0; done < CALLS; done += AT_ONCE) {
    const answers = await Promise.all(
      Array.from({ length: AT_ONCE }, (_, i) =>
        served.client.callTool({ name: "echo.echo", arguments: { text: `call ${done + i}` } }),
      ),
    );
    for (const answer of answers) expect(answer.isError).toBeFalsy();
  }
  return { ...served, child, exited };
}

describe("audit lines when the stdio server stops", () => {
  it("are all written when the client closes stdin", async () => {
    const served = await servedAndCalled();
    await served.client.close();
    expect(await served.exited, served.stderr()).toMatchObject({ signal: null });
    const lines = await auditLines();
    expect(lines).toHaveLength(CALLS);
    expect(new Set(lines.map((l) => (JSON.parse(l) as { traceId: string }).traceId)).size).toBe(CALLS);
  });

  it("are all written on SIGTERM, sent right after the last answer, and the server exits 0", async () => {
    const served = await servedAndCalled();
    served.child.kill("SIGTERM");
    expect(await served.exited, served.stderr()).toEqual({ code: 0, signal: null });
    expect(await auditLines()).toHaveLength(CALLS);
    await served.client.close();
  });

  it("are all written by a process that exits right after its calls without closing the host", async () => {
    const script = path.join(ws.dir, "exit-early.mjs");
    await writeFile(
      script,
      `import { createHost } from ${JSON.stringify(pathToFileURL(path.join(REPO, "packages/host/dist/index.js")).href)};
const host = await createHost({ manifest: ${JSON.stringify(manifest)} });
await Promise.all(Array.from({ length: ${CALLS} }, (_, i) => host.pipeline.call("echo.echo", { text: "call " + i })));
process.exit(0);
`,
    );
    const ran = await runNode(script, [], ws.dir, { SKILLPORT_LOG_LEVEL: "silent" });
    expect(ran, ran.stderr).toMatchObject({ code: 0 });
    expect(await auditLines()).toHaveLength(CALLS);
  });
});

import { readFile } from "node:fs/promises";
import path from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Workspace } from "./workspace.js";
import { CLI, makeWorkspace, REPO } from "./workspace.js";

const ECHO = path.join(REPO, "packages/host/test/fixtures/skill-echo");
const NEEDS_TOKEN = path.join(REPO, "packages/host/test/fixtures/skill-needs-token");
const CANARY = "canary-e2e-5d1b7a0f-token";

type Envelope = {
  ok: boolean;
  message: string;
  // biome-ignore lint/suspicious/noExplicitAny: each tool's data has its own shape; the assertions say which
  data?: any;
  error?: { code: string; field?: string; retryable: boolean; operationId?: string };
};

const ERAS = [
  { era: "2025-11-25", options: {} },
  { era: "2026-07-28", options: { versionNegotiation: { mode: { pin: "2026-07-28" } } } },
] as const;

describe.each(ERAS)("the call pipeline over stdio with the SDK client ($era era)", ({ options }) => {
  let ws: Workspace;
  let client: Client;
  let auditFile: string;

  beforeAll(async () => {
    ws = await makeWorkspace();
    auditFile = path.join(ws.dir, "audit.log");
    const manifest = await ws.writeManifest(
      {
        // With the arguments, the lines carry each call's brief (the confirmation test reads it).
        audit: { file: "./audit.log", arguments: true },
        // This client cannot ask its user: the operation-id fallback confirms its dangerous calls.
        confirmation: { fallback: "operation-id" },
        skills: [
          {
            path: ECHO,
            mcp: "echo",
            allow: ["wipe"],
            concurrency: 1,
            queue: 1,
            credentials: { token: { env: "E2E_CANARY" } },
            config: { prefix: "" },
          },
          { path: ECHO, mcp: "iso", isolation: "worker", tools: { include: ["spin", "echo"] } },
          { path: ECHO, mcp: "quick", timeoutMs: 100, tools: { include: ["sleep"] } },
          { path: NEEDS_TOKEN, credentials: { token: { env: "E2E_UNSET_VARIABLE" } } },
        ],
      },
      "pipeline.manifest.json",
    );
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "serve", "--stdio", "--manifest", manifest],
      cwd: ws.dir,
      env: { ...(process.env as Record<string, string>), E2E_CANARY: CANARY, SKILLPORT_LOG_LEVEL: "warn" },
      stderr: "pipe",
    });
    client = new Client({ name: "pipeline-e2e", version: "0.0.0" }, options as never);
    await client.connect(transport);
  });

  afterAll(async () => {
    await client?.close();
    await ws?.dispose();
  });

  async function call(name: string, args: Record<string, unknown>, requestOptions = {}) {
    const result = await client.callTool({ name, arguments: args }, requestOptions);
    return result.structuredContent as Envelope;
  }

  /** The audit lines written so far, waiting until one matches. */
  async function auditLine(match: (line: Record<string, unknown>) => boolean) {
    for (let attempt = 0; attempt < 100; attempt++) {
      const text = await readFile(auditFile, "utf8").catch(() => "");
      const lines = text
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      const found = lines.find(match);
      if (found !== undefined) return found;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error("no such audit line");
  }

  it("times out a slow call with TIMEOUT and audits it", async () => {
    const envelope = await call("quick.sleep", { ms: 60_000 });
    expect(envelope).toMatchObject({ ok: false, error: { code: "TIMEOUT", retryable: true } });
    expect(await auditLine((l) => l.tool === "quick.sleep")).toMatchObject({ outcome: "TIMEOUT", instance: "quick" });
  });

  it("stops a capability the client cancels and audits CANCELLED", async () => {
    const controller = new AbortController();
    const pending = client.callTool({ name: "echo.sleep", arguments: { ms: 59_000 } }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    await expect(pending).rejects.toThrow();
    const line = await auditLine((l) => l.tool === "echo.sleep" && l.outcome === "CANCELLED");
    expect(line.durationMs as number).toBeLessThan(59_000);
  });

  it("sends throttled progress to a client that asked for it", async () => {
    const seen: number[] = [];
    // 10,000 reports over about half a second: several throttle windows pass while the call runs.
    const envelope = await call(
      "echo.count",
      { pauseMs: 50 },
      { onprogress: (p: { progress: number }) => seen.push(p.progress) },
    );
    expect(envelope).toMatchObject({ ok: true, data: { counted: 10_000 } });
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.length).toBeLessThan(100);
    // Increasing, as MCP requires. (The final report may land after the result, when the client drops it.)
    expect(seen.every((p, i) => i === 0 || p > (seen[i - 1] ?? 0))).toBe(true);
  });

  it("answers RATE_LIMITED beyond the instance's concurrency and queue", async () => {
    const controller = new AbortController();
    const busy = [1, 2].map(() =>
      client
        .callTool({ name: "echo.sleep", arguments: { ms: 59_000 } }, { signal: controller.signal })
        .catch(() => undefined),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const refused = await call("echo.sleep", { ms: 1 });
    expect(refused).toMatchObject({ ok: false, error: { code: "RATE_LIMITED", retryable: true } });
    controller.abort();
    await Promise.all(busy);
    expect(await auditLine((l) => l.outcome === "RATE_LIMITED")).toMatchObject({ tool: "echo.sleep" });
  });

  it("terminates a worker stuck in a synchronous loop, and the next call works", async () => {
    expect(await call("iso.spin", {})).toMatchObject({ ok: false, error: { code: "TIMEOUT" } });
    expect(await call("iso.echo", { text: "still here" })).toMatchObject({ ok: true, data: { echoed: "still here" } });
    expect(await auditLine((l) => l.tool === "iso.spin")).toMatchObject({ outcome: "TIMEOUT" });
  });

  it("confirms a dangerous call: CONFIRMATION_REQUIRED → confirm → runs exactly once → reuse refused", async () => {
    const asked = await call("echo.wipe", { target: "scratch" });
    expect(asked).toMatchObject({ ok: false, error: { code: "CONFIRMATION_REQUIRED" } });
    const id = asked.error?.operationId as string;
    const ran = await call("echo.wipe", { target: "scratch", _confirm: id });
    expect(ran).toMatchObject({ ok: true, data: { wiped: "scratch" } });
    const reused = await call("echo.wipe", { target: "scratch", _confirm: id });
    expect(reused).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED", field: "/_confirm" } });
    const again = await call("echo.wipe", { target: "scratch" });
    const next = await call("echo.wipe", { target: "scratch", _confirm: again.error?.operationId });
    expect(next.data.count).toBe(ran.data.count + 1); // the refused reuse ran nothing
    const outcomes = [];
    for (const outcome of ["CONFIRMATION_REQUIRED", "OK", "PERMISSION_DENIED"]) {
      outcomes.push((await auditLine((l) => l.tool === "echo.wipe" && l.outcome === outcome)).brief);
    }
    expect(outcomes).toEqual(["Wipe scratch", "Wipe scratch", "Wipe scratch"]);
  });

  it("survives a capability that leaves a stray rejection and a throwing timer", async () => {
    expect(await call("echo.stray", {})).toMatchObject({ ok: true });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await call("echo.echo", { text: "alive" })).toMatchObject({ ok: true, data: { echoed: "alive" } });
  });

  it("answers CREDENTIALS_MISSING naming the variable to set", async () => {
    const envelope = await call("needy.use_token", {});
    expect(envelope).toMatchObject({ ok: false, error: { code: "CREDENTIALS_MISSING" } });
    expect(envelope.message).toContain("E2E_UNSET_VARIABLE");
    expect(await auditLine((l) => l.tool === "needy.use_token")).toMatchObject({ outcome: "CREDENTIALS_MISSING" });
  });

  it("redacts a canary token from results, errors and audit lines", async () => {
    const result = await client.callTool({ name: "echo.leak", arguments: {} });
    expect(JSON.stringify(result)).not.toContain(CANARY);
    expect((result.structuredContent as Envelope).data.token).toBe("[REDACTED]");
    await auditLine((l) => l.tool === "echo.leak");
    expect(await readFile(auditFile, "utf8")).not.toContain(CANARY);
  });
});

describe.each(ERAS)("confirming with the user through elicitation ($era era)", ({ options }) => {
  let ws: Workspace;

  beforeAll(async () => {
    ws = await makeWorkspace();
  });
  afterAll(() => ws.dispose());

  it.each([
    ["accepts", { action: "accept", content: { confirm: true } }, { ok: true }],
    ["declines", { action: "decline" }, { ok: false, error: { code: "PERMISSION_DENIED" } }],
  ])("runs only when the user accepts (user %s)", async (_case, answer, expected) => {
    const manifest = await ws.writeManifest({ skills: [{ path: ECHO, allow: ["wipe"] }] }, "elicit.manifest.json");
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "serve", "--stdio", "--manifest", manifest],
      cwd: ws.dir,
      env: { ...(process.env as Record<string, string>), SKILLPORT_LOG_LEVEL: "warn" },
      stderr: "pipe",
    });
    const client = new Client({ name: "eliciting-client", version: "0.0.0" }, {
      ...(options as object),
      capabilities: { elicitation: { form: {} } },
    } as never);
    const asked: string[] = [];
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.push(String((request.params as { message?: string }).message));
      return answer as never;
    });
    await client.connect(transport);
    try {
      const result = await client.callTool({ name: "echo.wipe", arguments: { target: "cache" } });
      expect(result.structuredContent).toMatchObject(expected);
      expect(asked).toEqual([expect.stringContaining("Wipe cache")]);
    } finally {
      await client.close();
    }
  });
});

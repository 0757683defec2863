// The call pipeline end to end over stdio's line transport, in both protocol eras, driven by the SDK client: a host
// in this process served on a pair of pipes as `skillport serve --stdio` serves its own stdin and stdout. Timeouts,
// cancels, throttled progress, limits, worker isolation, confirmation, credentials and redaction, each as a client
// sees it and as the audit records it.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { jsonLineIn } from "@skillport/test-utils";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Host } from "../../src/host.js";
import { ECHO, NEEDS_TOKEN, scratch } from "../helpers.js";
import { ERAS, hostFrom, pipeStdio } from "../serving.js";

const CANARY = "canary-e2e-5d1b7a0f-token";

type Envelope = {
  ok: boolean;
  message: string;
  // biome-ignore lint/suspicious/noExplicitAny: each tool's data has its own shape; the assertions say which
  data?: any;
  error?: { code: string; field?: string; retryable: boolean; operationId?: string };
};

describe.each(ERAS)("the call pipeline over stdio with the SDK client ($era era)", ({ options }) => {
  let dir: string;
  let host: Host;
  let client: Client;
  let auditFile: string;

  beforeAll(async () => {
    vi.stubEnv("E2E_CANARY", CANARY);
    vi.stubEnv("E2E_UNSET_VARIABLE", undefined);
    dir = await mkdtemp(path.join(os.tmpdir(), "skillport-pipeline-"));
    auditFile = path.join(dir, "audit.log");
    host = await hostFrom(dir, {
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
    });
    client = await pipeStdio(host).connect(options);
  });

  afterAll(async () => {
    await client?.close();
    await host?.close();
    vi.unstubAllEnvs();
    await rm(dir, { recursive: true, force: true });
  });

  async function call(name: string, args: Record<string, unknown>, requestOptions = {}) {
    const result = await client.callTool({ name, arguments: args }, requestOptions);
    return result.structuredContent as Envelope;
  }

  /** The first audit line (written already, or from now on) that matches. */
  const auditLine = (match: (line: Record<string, unknown>) => boolean) => jsonLineIn(auditFile, match);

  it("times out a slow call with TIMEOUT and audits it", async () => {
    const envelope = await call("quick.sleep", { ms: 60_000 });
    expect(envelope).toMatchObject({ ok: false, error: { code: "TIMEOUT", retryable: true } });
    expect(await auditLine((l) => l.tool === "quick.sleep")).toMatchObject({ outcome: "TIMEOUT", instance: "quick" });
  });

  it("stops a capability the client cancels and audits CANCELLED", async () => {
    const controller = new AbortController();
    // echo.wait reports progress once it runs, then waits for its signal: cancel when it says it runs.
    const pending = client.callTool(
      { name: "echo.wait", arguments: {} },
      { signal: controller.signal, onprogress: () => controller.abort() },
    );
    await expect(pending).rejects.toThrow();
    const line = await auditLine((l) => l.tool === "echo.wait" && l.outcome === "CANCELLED");
    expect(line.instance).toBe("echo");
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
    // Three calls at once to an instance that runs one and queues one: one of them is refused at once.
    const controller = new AbortController();
    const answers = [1, 2, 3].map(() =>
      client.callTool({ name: "echo.wait", arguments: {} }, { signal: controller.signal }).then(
        (result) => result.structuredContent as Envelope,
        () => undefined,
      ),
    );
    const refused = await Promise.race(answers);
    expect(refused).toMatchObject({ ok: false, error: { code: "RATE_LIMITED", retryable: true } });
    controller.abort();
    await Promise.all(answers);
    expect(await auditLine((l) => l.outcome === "RATE_LIMITED")).toMatchObject({ tool: "echo.wait" });
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
  it.each([
    ["accepts", { action: "accept", content: { confirm: true } }, { ok: true }],
    ["declines", { action: "decline" }, { ok: false, error: { code: "PERMISSION_DENIED" } }],
  ])("runs only when the user accepts (user %s)", async (_case, answer, expected) => {
    const host = await hostFrom(await scratch("skillport-elicit-"), { skills: [{ path: ECHO, allow: ["wipe"] }] });
    const client = await pipeStdio(host).connect({ ...options, capabilities: { elicitation: { form: {} } } });
    const asked: string[] = [];
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.push(String((request.params as { message?: string }).message));
      return answer as never;
    });
    try {
      const result = await client.callTool({ name: "echo.wipe", arguments: { target: "cache" } });
      expect(result.structuredContent).toMatchObject(expected);
      expect(asked).toEqual([expect.stringContaining("Wipe cache")]);
    } finally {
      await client.close();
      await host.close();
    }
  });
});

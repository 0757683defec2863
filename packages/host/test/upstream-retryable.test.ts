import { describe, expect, it } from "vitest";
import type { UpstreamError, UpstreamHandle, UpstreamResult, UpstreamTool } from "../src/entries/upstream-client.js";
import { createHost } from "../src/host.js";
import { manifestOf, silentLogger } from "./helpers.js";

// An upstream's failure is retryable only where the same call may succeed when tried again: the server could not be
// reached or dropped the connection, the call timed out, the server is rate limiting or briefly down, or a Skillport
// upstream said so. The tool refusing the call ("Access denied - path outside allowed directories"), a JSON-RPC
// error, refused credentials or an oversized answer come back the same.

type Failure = { error: UpstreamError; result?: UpstreamResult };

const text = (value: string): UpstreamResult => ({ content: [{ type: "text", text: value }] });
const FAILURES: Record<string, Failure> = {
  refuses: {
    error: { code: "TOOL_ERROR", message: "the tool failed" },
    result: { ...text("Access denied - path outside allowed directories"), isError: true },
  },
  skillport_retryable: {
    error: { code: "TOOL_ERROR", message: "the tool failed" },
    result: {
      ...text("busy"),
      isError: true,
      structuredContent: {
        ok: false,
        message: "the vault is being re-indexed",
        error: { code: "UNAVAILABLE", retryable: true, traceId: "t" },
        meta: {},
      },
    },
  },
  times_out: { error: { code: "TIMEOUT", message: "no answer within 1000 ms" } },
  drops: { error: { code: "UNAVAILABLE", message: "the connection closed" } },
  http_503: { error: { code: "UNAVAILABLE", message: "the server answered HTTP 503", status: 503 } },
  http_404: { error: { code: "UNAVAILABLE", message: "the server answered HTTP 404", status: 404 } },
  http_429: { error: { code: "UNAVAILABLE", message: "the server answered HTTP 429", status: 429 } },
  rpc_error: { error: { code: "PROTOCOL_ERROR", message: "the server answered -32603", rpcCode: -32603 } },
  bad_params: { error: { code: "PROTOCOL_ERROR", message: "the server answered -32602", rpcCode: -32602 } },
  too_large: { error: { code: "RESULT_TOO_LARGE", message: "too large" } },
  unauthorized: { error: { code: "UNAUTHORIZED", message: "refused", status: 401 } },
};
const EXPECTED: Record<string, { code: string; retryable: boolean }> = {
  refuses: { code: "UPSTREAM_ERROR", retryable: false },
  skillport_retryable: { code: "UNAVAILABLE", retryable: true },
  times_out: { code: "TIMEOUT", retryable: true },
  drops: { code: "UNAVAILABLE", retryable: true },
  http_503: { code: "UNAVAILABLE", retryable: true },
  http_404: { code: "UNAVAILABLE", retryable: false },
  http_429: { code: "RATE_LIMITED", retryable: true },
  rpc_error: { code: "UPSTREAM_ERROR", retryable: false },
  bad_params: { code: "ARGUMENT_INVALID", retryable: true },
  too_large: { code: "UPSTREAM_ERROR", retryable: false },
  unauthorized: { code: "UPSTREAM_ERROR", retryable: false },
};

const TOOLS: UpstreamTool[] = Object.keys(FAILURES).map((name) => ({
  name,
  inputSchema: { type: "object" },
  annotations: { readOnlyHint: true },
}));

/** A server that answers each of its tools with that tool's failure. */
const failingHandle = (): UpstreamHandle => ({
  start: async () => ({ ok: true, tools: TOOLS }),
  stop: async () => undefined,
  callTool: async (name) => ({ ok: false, ...(FAILURES[name] as Failure) }),
  state: { value: "ready", tools: TOOLS, subscribe: () => () => undefined },
});

describe("an upstream's failure", () => {
  it("is retryable only where a retry can succeed", async () => {
    const host = await createHost({
      manifest: manifestOf({ skills: [], servers: [{ mcp: "up", command: "up-server" }] }),
      logger: silentLogger(),
      client: async () => ({ connect: failingHandle, linearRegExp: (pattern, flags) => new RegExp(pattern, flags) }),
    });
    try {
      const answers: Record<string, unknown> = {};
      for (const name of Object.keys(FAILURES)) {
        const outcome = await host.pipeline.call(`up.${name}`, {});
        const { code, retryable } = (outcome.envelope as { error: { code: string; retryable: boolean } }).error;
        answers[name] = { code, retryable };
      }
      expect(answers).toEqual(EXPECTED);
    } finally {
      await host.close();
    }
  });
});

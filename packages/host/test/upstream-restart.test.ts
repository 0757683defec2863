// The restart gate of an upstream server, on its own: which failures count, how long it waits, what ends the streak.
// The handle here stands for @skillport/client's (the boundary the host reaches upstream servers through); the
// whole path, with a real server failing at every start, is in the CLI's upstream-lifecycle test.
import { describe, expect, it } from "vitest";
import type { UpstreamError, UpstreamHandle } from "../src/entries/upstream-client.js";
import { withRestartBackoff } from "../src/entries/upstream-restart.js";

type Snapshot = { value: string; error?: UpstreamError; change: "state" | "tools" };

type Answer = Awaited<ReturnType<UpstreamHandle["callTool"]>>;

/** A handle whose starts fail while `failing` is true, and whose calls answer `answer`. */
function fakeHandle() {
  const listeners = new Set<(s: Snapshot) => void>();
  const fake: { failing: boolean; starts: number; value: string; answer: Answer; emit: Emit; handle: UpstreamHandle } =
    {
      failing: true,
      starts: 0,
      value: "idle",
      answer: { ok: true, result: { content: [] } },
      emit: (value, error) => {
        fake.value = value;
        for (const listener of listeners) listener({ value, change: "state", ...(error ? { error } : {}) });
      },
      handle: {
        state: {
          get value() {
            return fake.value;
          },
          tools: undefined,
          subscribe(listener: (s: Snapshot) => void) {
            listeners.add(listener);
            return () => listeners.delete(listener);
          },
        },
        async start() {
          fake.starts++;
          if (fake.failing) {
            const error = { code: "UNAVAILABLE", message: "exited with code 3" };
            fake.emit("error", error);
            return { ok: false as const, error };
          }
          fake.emit("ready");
          return { ok: true as const, tools: [] };
        },
        async stop() {
          fake.emit("idle");
        },
        async callTool() {
          return fake.answer;
        },
      },
    };
  return fake;
}

type Emit = (value: string, error?: UpstreamError) => void;

describe("withRestartBackoff", () => {
  it("retries the first failure at once, then waits a doubling, capped delay with at least half of it fixed", async () => {
    const fake = fakeHandle();
    let now = 0;
    const gated = withRestartBackoff(fake.handle, "servers[0]", {
      initialDelayMs: 1000,
      maxDelayMs: 4000,
      random: () => 0,
      now: () => now,
    });
    await gated.start();
    await gated.start();
    expect(fake.starts).toBe(2);
    const waits: number[] = [];
    for (let i = 0; i < 4; i++) {
      // Find the first moment it starts again: the delay after this failure (random 0 → half the capped delay).
      const from = now;
      while ((await gated.start()).ok === false && fake.starts === 2 + i) now += 100;
      waits.push(now - from);
    }
    expect(waits).toEqual([500, 1000, 2000, 2000]);
  });

  it("answers UNAVAILABLE without starting, naming the streak and the last reason", async () => {
    const fake = fakeHandle();
    const gated = withRestartBackoff(fake.handle, 'servers[0] ("up")', {
      initialDelayMs: 60_000,
      maxDelayMs: 60_000,
      random: () => 0,
      now: () => 0,
    });
    await gated.start();
    await gated.start();
    const refused = await gated.start();
    expect(fake.starts).toBe(2);
    expect(refused).toMatchObject({ ok: false, error: { code: "UNAVAILABLE" } });
    expect(refused.ok ? "" : refused.error.message).toMatch(
      /^servers\[0\] \("up"\) failed 2 times in a row \(last: exited with code 3\); it is started again on the first call after 30 s$/,
    );
  });

  it("a call the server answers ends the streak; a lost connection does not", async () => {
    const fake = fakeHandle();
    let now = 0;
    const gated = withRestartBackoff(fake.handle, "s", { initialDelayMs: 1000, maxDelayMs: 1000, now: () => now });
    await gated.start();
    await gated.start();
    now += 1000;
    fake.failing = false;
    expect((await gated.start()).ok).toBe(true);
    // The connection is lost before any answer: the streak goes on (third failure), so the gate holds.
    fake.answer = { ok: false, error: { code: "UNAVAILABLE", message: "the connection closed" } };
    fake.emit("error", { code: "UNAVAILABLE", message: "the connection closed" });
    await gated.callTool("t", {}, { signal: new AbortController().signal, timeoutMs: 1 });
    expect((await gated.start()).ok).toBe(false);
    now += 1000;
    expect((await gated.start()).ok).toBe(true);
    // A tool's own error is an answer: the streak ends, and the next loss is retried at once.
    fake.answer = { ok: false, error: { code: "TOOL_ERROR", message: "no" } };
    await gated.callTool("t", {}, { signal: new AbortController().signal, timeoutMs: 1 });
    fake.emit("error", { code: "UNAVAILABLE", message: "the connection closed" });
    expect((await gated.start()).ok).toBe(true);
  });
});

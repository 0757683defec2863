import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { throttleProgress } from "../src/pipeline/throttle-progress.js";

type Sent = [number, number | undefined, string | undefined];

/** A throttle over fake time (timers and performance.now, the clock it reads), and what it sent. */
function throttled(intervalMs = 100) {
  const sent: Sent[] = [];
  const throttle = throttleProgress((done, total, message) => sent.push([done, total, message]), intervalMs);
  return { throttle, sent };
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("throttleProgress", () => {
  it("sends the first report at once, then at most one per interval, the latest one", () => {
    const { throttle, sent } = throttled();
    throttle.report(1, 10, "one");
    throttle.report(2, 10, "two");
    throttle.report(3, 10, "three");
    expect(sent).toEqual([[1, 10, "one"]]);
    vi.advanceTimersByTime(99);
    expect(sent).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(sent).toEqual([
      [1, 10, "one"],
      [3, 10, "three"],
    ]);
  });

  it("sends the final report (done equal to total) at once, inside the interval", () => {
    const { throttle, sent } = throttled();
    throttle.report(1, 3);
    throttle.report(2, 3);
    throttle.report(3, 3, "done");
    expect(sent).toEqual([
      [1, 3, undefined],
      [3, 3, "done"],
    ]);
    vi.advanceTimersByTime(1000);
    expect(sent).toHaveLength(2); // the report it replaced is not sent after it
  });

  it("throttles a flood of n-of-n reports: only the first passes at once, then one per interval", () => {
    const { throttle, sent } = throttled();
    // An attacker's capability (or a careless one) reporting n of n for n = 1, 2, 3 … in a tight loop.
    for (let n = 1; n <= 10_000; n++) throttle.report(n, n, `step ${n}`);
    expect(sent).toEqual([[1, 1, "step 1"]]);
    vi.advanceTimersByTime(100);
    expect(sent).toEqual([
      [1, 1, "step 1"],
      [10_000, 10_000, "step 10000"],
    ]);
    for (let n = 10_001; n <= 20_000; n++) throttle.report(n, n);
    expect(sent).toHaveLength(2);
    vi.advanceTimersByTime(100);
    expect(sent.at(-1)).toEqual([20_000, 20_000, undefined]);
    expect(sent).toHaveLength(3);
  });

  it("throttles reports beyond their total (done greater than total) the same way", () => {
    const { throttle, sent } = throttled();
    for (let n = 1; n <= 1000; n++) throttle.report(n + 5, 5);
    expect(sent).toEqual([[6, 5, undefined]]);
    vi.advanceTimersByTime(100);
    expect(sent).toEqual([
      [6, 5, undefined],
      [1005, 5, undefined],
    ]);
  });

  it("sends the report still waiting when the call ends, once, so the last one always arrives", () => {
    const { throttle, sent } = throttled();
    throttle.report(1, 1);
    throttle.report(2, 2);
    throttle.report(3, 10, "last"); // a total that grew, then the call answered inside the interval
    throttle.close();
    expect(sent).toEqual([
      [1, 1, undefined],
      [3, 10, "last"],
    ]);
    vi.advanceTimersByTime(1000);
    throttle.report(4, 4);
    expect(sent).toHaveLength(2); // nothing after the call ended
  });

  it("never sends a value that does not increase", () => {
    const { throttle, sent } = throttled();
    throttle.report(5, 10);
    vi.advanceTimersByTime(100);
    throttle.report(5, 10);
    throttle.report(4, 10);
    throttle.report(Number.NaN, 10);
    vi.advanceTimersByTime(100);
    expect(sent).toEqual([[5, 10, undefined]]);
  });
});

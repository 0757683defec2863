import { describe, expect, it } from "vitest";
import { CallStop } from "../src/pipeline/call-stop.js";

describe("CallStop", () => {
  it("makes no signal until one is read, and a signal read after it stopped is already aborted with the reason", () => {
    const stop = new CallStop();
    const reason = new Error("cancelled by the client");
    stop.abort(reason);
    expect(stop.aborted).toBe(true);
    expect(stop.signal.aborted).toBe(true);
    expect(stop.signal.reason).toBe(reason);
    expect(() => stop.throwIfAborted()).toThrow(reason);
  });

  it("aborts a signal read earlier before its own listeners hear it, and only the first reason counts", () => {
    const stop = new CallStop();
    const heard: string[] = [];
    stop.signal.addEventListener("abort", () => heard.push(`signal: ${String(stop.signal.reason)}`));
    stop.onAbort((reason) => heard.push(`listener: ${String(reason)}`));
    stop.abort("first");
    stop.abort("second");
    expect(heard).toEqual(["signal: first", "listener: first"]);
    expect(stop.reason).toBe("first");
  });

  it("defaults to an AbortError, calls a listener added after it stopped at once, and forgets a listener taken back", () => {
    const stop = new CallStop();
    const taken = stop.onAbort(() => {
      throw new Error("a listener taken back must not be called");
    });
    taken();
    stop.abort();
    expect((stop.reason as DOMException).name).toBe("AbortError");
    const late: unknown[] = [];
    stop.onAbort((reason) => late.push(reason));
    expect(late).toEqual([stop.reason]);
  });
});

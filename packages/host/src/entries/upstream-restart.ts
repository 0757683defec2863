import type { UpstreamHandle } from "./upstream-client.js";

/** How an upstream server that keeps failing is started again (the manifest's `servers[i].restart`). */
export interface RestartPolicy {
  /** The wait after the second failure in a row; it doubles with each further one. */
  initialDelayMs: number;
  /** The longest wait. */
  maxDelayMs: number;
  /** The random source of the jitter, in [0, 1). @default Math.random */
  random?: () => number;
  /** @default Date.now */
  now?: () => number;
}

/**
 * A handle that is not started again while it keeps failing: a failed start, or a connection lost before the server
 * answered a call, counts as a failure; the first one is retried at once (a server that crashed once comes back on
 * the next call), each further one waits a capped, doubling delay with jitter, during which `start()` answers
 * UNAVAILABLE without spawning or connecting anything. A call the server answers (even with an error of its own)
 * ends the streak.
 */
export function withRestartBackoff(handle: UpstreamHandle, source: string, policy: RestartPolicy): UpstreamHandle {
  const random = policy.random ?? Math.random;
  const now = policy.now ?? Date.now;
  let failures = 0;
  let retryAt = 0;
  let last = "";
  handle.state.subscribe((snapshot) => {
    if (snapshot.change !== "state" || snapshot.value !== "error") return;
    failures++;
    last = snapshot.error?.message ?? "it failed";
    if (failures < 2) return;
    // "Equal jitter": at least half the capped delay, so a crash loop never spins; the other half random, so
    // servers that failed together do not all come back at once.
    const capped = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (failures - 2));
    retryAt = now() + Math.round(capped / 2 + (random() * capped) / 2);
  });
  return {
    state: handle.state,
    stop: () => handle.stop(),
    start: () => {
      const waitMs = retryAt - now();
      if (failures >= 2 && waitMs > 0 && handle.state.value !== "ready") {
        return Promise.resolve({
          ok: false,
          error: {
            code: "UNAVAILABLE",
            message: `${source} failed ${failures} times in a row (last: ${last}); it is started again on the first call after ${Math.ceil(waitMs / 1000)} s`,
          },
        });
      }
      return handle.start();
    },
    callTool: async (name, args, options) => {
      const outcome = await handle.callTool(name, args, options);
      if (outcome.ok || outcome.error.code !== "UNAVAILABLE") failures = 0;
      return outcome;
    },
  };
}

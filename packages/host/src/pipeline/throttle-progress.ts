/** Sends one progress notification. */
export type SendProgress = (progress: number, total: number | undefined, message: string | undefined) => void;

/** The least time between two progress notifications of one call. */
const PROGRESS_INTERVAL_MS = 100;

/**
 * Wraps a progress sender so a capability reporting in a tight loop cannot flood the transport: at most one
 * notification per interval, the latest report delivered at the end of it, values only ever increasing (as MCP
 * requires). The first report that says the work is done (done >= total) is sent at once, once: a capability that
 * reports n of n for n = 1, 2, 3 … is throttled like any other after it. When the call ends, the report still
 * waiting is sent then, so the last one always reaches the client, before the answer.
 */
export function throttleProgress(send: SendProgress, intervalMs = PROGRESS_INTERVAL_MS) {
  let lastSentAt = Number.NEGATIVE_INFINITY;
  let lastSent = Number.NEGATIVE_INFINITY;
  let pending: [number, number | undefined, string | undefined] | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;
  let finalSent = false;

  const flush = () => {
    timer = undefined;
    if (pending === undefined || closed) return;
    const [done, total, message] = pending;
    pending = undefined;
    lastSentAt = performance.now();
    lastSent = done;
    send(done, total, message);
  };

  return {
    report(done: number, total?: number, message?: string) {
      if (closed || !Number.isFinite(done) || done <= lastSent) return;
      pending = [done, total, message];
      const final = !finalSent && total !== undefined && done >= total;
      if (final) finalSent = true;
      if (final || performance.now() - lastSentAt >= intervalMs) {
        if (timer !== undefined) clearTimeout(timer);
        flush();
      } else {
        timer ??= setTimeout(flush, intervalMs - (performance.now() - lastSentAt));
      }
    },
    /** Stops sending: the call has answered. The report still waiting, if any, is sent now. */
    close() {
      if (closed) return;
      if (timer !== undefined) clearTimeout(timer);
      flush();
      closed = true;
    },
  };
}

// Latency of sequential calls, shared by the benchmarks that time one call at a time.

/** Times `count` calls of `target.call()` one after another; answers their p50 and p99 in ms. */
export async function timeCalls(target, count) {
  const samples = new Array(count);
  for (let i = 0; i < count; i++) {
    const began = performance.now();
    await target.call();
    samples[i] = performance.now() - began;
  }
  samples.sort((a, b) => a - b);
  return { p50: samples[Math.floor(count * 0.5)], p99: samples[Math.floor(count * 0.99)] };
}

/** The middle value (the upper one of an even count). */
export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

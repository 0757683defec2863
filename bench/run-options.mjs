// The command-line options the comparison benchmarks share: `--quick`, `--no-write`, and numbers such as `--rounds 5`.

/** `--quick`: fewer rounds and calls, for a run of a few minutes. */
export const QUICK = process.argv.includes("--quick");

/** Unless `--no-write`, a benchmark rewrites its section of bench/RESULTS.md. */
export const WRITE = !process.argv.includes("--no-write");

/** The number after `name` on the command line, else `fallback`. */
export function flag(name, fallback) {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
}

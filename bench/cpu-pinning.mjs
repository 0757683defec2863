// Keeps the client (this process) and the server it calls on a core each while calls are timed, with `taskset`
// (util-linux). Unpinned, Linux places a woken process where it likes: for thousands of calls in a row a server may
// share the client's core (a call then takes about half as long: no cross-core wake-up), then move, so one server of a
// pair measured up to 2× the other for nothing it did. Pinned, every server meets the same placement: the client on
// the first core this process may use, the server on the second. Start-up is not pinned (every process starts with
// this process's own cores), so start times and memory stay comparable with unpinned runs.
import { execFileSync } from "node:child_process";

/** The cores this process may use, or undefined when taskset is missing or fails. */
function allowedCores() {
  try {
    const out = execFileSync("taskset", ["-c", "-p", String(process.pid)], { encoding: "utf8" });
    const list = out.slice(out.lastIndexOf(":") + 1).trim();
    return { list, cores: list.split(",").flatMap(expandRange) };
  } catch {
    return undefined;
  }
}

function expandRange(part) {
  const [from, to = from] = part.split("-").map(Number);
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

const allowed = allowedCores();
const usable = allowed !== undefined && allowed.cores.length >= 2;

/** Every thread of process `pid` on `cores` (a taskset list). */
const pin = (pid, cores) => execFileSync("taskset", ["-a", "-c", "-p", cores, String(pid)], { stdio: "ignore" });

const NOT_PINNED = `nothing is pinned (${allowed === undefined ? "taskset is not available" : "one core only"}), so placement noise is in the numbers`;

/** What the results say about placement while calls are timed: "While calls are timed, ${PINNING}." */
export const PINNING = usable
  ? `the client is pinned to core ${allowed.cores[0]} and every server to core ${allowed.cores[1]} (taskset)`
  : NOT_PINNED;

/** For a measure whose client and server share one process: what the results say about its placement. */
export const PINNING_ONE_PROCESS = usable
  ? `each measuring process, every thread of it, is pinned to core ${allowed.cores[1]} (taskset)`
  : NOT_PINNED;

/** Moves a started server, every thread of it, to the server's core. */
export function pinServer(pid) {
  if (usable) pin(pid, String(allowed.cores[1]));
}

/** Pins this process, every thread of it, to the server's core: client and server in one process, measured alone. */
export const pinThisProcess = () => pinServer(process.pid);

/** Pins this process (the client) to its core until `release()`. */
export function pinClient() {
  if (!usable) return { release: () => undefined };
  pin(process.pid, String(allowed.cores[0]));
  return { release: () => pin(process.pid, allowed.list) };
}

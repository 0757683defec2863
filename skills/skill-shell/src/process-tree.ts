import { readdir, readFile } from "node:fs/promises";

/** A process, as /proc shows it: its id and its start time (so a reused id is not mistaken for it). */
export interface ProcessId {
  pid: number;
  /** Clock ticks after boot, from /proc/<pid>/stat. */
  start: string;
}

/**
 * Every process below `root` (children, grandchildren, …), read from /proc; empty where there is no /proc.
 * A process that left its session or group (`setsid`) is still found while its parent lives: what this cannot
 * find is a process whose parent already exited (it now belongs to init).
 */
export async function descendantsOf(root: number): Promise<ProcessId[]> {
  let names: string[];
  try {
    names = await readdir("/proc");
  } catch {
    return [];
  }
  const children = new Map<number, ProcessId[]>();
  await Promise.all(
    names
      .filter((n) => /^\d+$/.test(n))
      .map(async (n) => {
        const stat = await readStat(Number(n));
        if (stat === undefined) return;
        const list = children.get(stat.ppid) ?? [];
        list.push({ pid: stat.pid, start: stat.start });
        children.set(stat.ppid, list);
      }),
  );
  const found: ProcessId[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift() as number) ?? []) {
      found.push(child);
      queue.push(child.pid);
    }
  }
  return found;
}

/** Sends `signal` to each process that is still the one recorded (same id and start time); gone ones are skipped. */
export async function signalEach(processes: readonly ProcessId[], signal: NodeJS.Signals): Promise<void> {
  await Promise.all(
    processes.map(async (p) => {
      const now = await readStat(p.pid);
      if (now === undefined || now.start !== p.start) return;
      try {
        process.kill(p.pid, signal);
      } catch {
        // gone meanwhile
      }
    }),
  );
}

// --- internal ---

async function readStat(pid: number): Promise<{ pid: number; ppid: number; start: string } | undefined> {
  let text: string;
  try {
    text = await readFile(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // The command name is in parentheses and may hold spaces or parentheses: read the fields after the last ")".
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  // fields[0] is the state (field 3), so field n is fields[n - 3].
  const ppid = Number(fields[1]);
  const start = fields[19];
  if (!Number.isInteger(ppid) || start === undefined) return undefined;
  return { pid, ppid, start };
}

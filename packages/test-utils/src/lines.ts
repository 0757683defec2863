import { watch } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";

/** The lines of a text file another party appends to (an audit file, a fixture's record); none if it is missing. */
export async function linesOf(file: string): Promise<string[]> {
  const text = await readFile(file, "utf8").catch(() => "");
  return text.split("\n").filter((line) => line !== "");
}

/**
 * Waits until `check` holds of a file's lines, re-reading the file each time the file system reports a change in its
 * folder (no polling, no sleep), and resolves with the lines it held on. A file that does not exist yet has none.
 *
 * @example
 * await untilLines(record, (lines) => lines.includes("started drain"));
 */
export async function untilLines(file: string, check: (lines: string[]) => boolean): Promise<string[]> {
  const watcher = watch(path.dirname(file));
  try {
    // Watching before the first read: a line written in between is seen by the read or reported by the watcher.
    const changed = new Set<() => void>();
    watcher.on("change", () => {
      for (const wake of [...changed]) wake();
    });
    for (;;) {
      const seen = new Promise<void>((resolve) => changed.add(resolve));
      const lines = await linesOf(file);
      if (check(lines)) return lines;
      await seen;
      changed.clear();
    }
  } finally {
    watcher.close();
  }
}

/**
 * The first JSON line of a file (already written or from now on) that `match` accepts, as parsed; a line that is not
 * JSON is skipped.
 *
 * @example
 * const line = await jsonLineIn(auditFile, (l) => l.tool === "echo.wipe" && l.outcome === "OK");
 */
export async function jsonLineIn(
  file: string,
  match: (line: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown>> {
  let found: Record<string, unknown> | undefined;
  await untilLines(file, (lines) => {
    for (const line of lines) {
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        continue;
      }
      if (typeof value === "object" && value !== null && match(value as Record<string, unknown>)) {
        found = value as Record<string, unknown>;
        return true;
      }
    }
    return false;
  });
  return found as Record<string, unknown>;
}

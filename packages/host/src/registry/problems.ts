import type { HostErrorCode } from "../errors/host-error.js";
import { HostError } from "../errors/host-error.js";
import type { LoadedManifest } from "../manifest/manifest.js";

/** One thing that stops the host, as the table's builders collect them: its code and what to do. */
export interface Problem {
  code: HostErrorCode;
  message: string;
}

/** The problems of settled results (HostErrors), and the values of the fulfilled ones. */
export function collect<T>(results: readonly PromiseSettledResult<T>[], problems: Problem[]): T[] {
  const values: T[] = [];
  for (const result of results) {
    if (result.status === "fulfilled") {
      values.push(result.value);
      continue;
    }
    const error: unknown = result.reason;
    if (!(error instanceof HostError)) throw error;
    problems.push(...problemsOf(error).map((message) => ({ code: error.code, message })));
  }
  return values;
}

/** A HostError's problems, or its message when it lists none; without the "[skillport]" each message starts with. */
export function problemsOf(error: HostError): string[] {
  return (error.problems.length > 0 ? error.problems : [error.message]).map((m) => m.replace(/^\[skillport\] /, ""));
}

/** Stops the host with every problem found, the first one's code on the error; nothing when there is none. */
export function failOn(problems: Problem[], manifest: LoadedManifest): void {
  if (problems.length === 0) return;
  const first = problems[0] as Problem;
  const noun = problems.length === 1 ? "problem" : "problems";
  throw new HostError(
    first.code,
    `[skillport] cannot start: ${problems.length} ${noun} in ${manifest.file}:`,
    problems.map((p) => p.message),
  );
}

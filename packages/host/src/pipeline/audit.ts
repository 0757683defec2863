import type { Redactor } from "../redaction/redactor.js";
import { createAuditDestination } from "./audit-destination.js";

/** One audit line: what was called, by whom, and how it ended. Arguments and the brief only when the manifest asks. */
export interface AuditRecord {
  traceId: string;
  tool: string;
  instance: string;
  skill: string;
  risk: string;
  brief: string | undefined;
  /** "OK" or the error code. */
  outcome: string;
  durationMs: number;
  caller?: string | undefined;
  arguments?: unknown;
}

/** Where audit lines go: stderr unless the manifest names a file. */
export interface AuditOptions {
  file?: string | undefined;
  /** Whether a line carries the call's arguments and its brief (which is made of them). @default false */
  arguments?: boolean;
}

/** Writes one JSON line per call, every known secret redacted (the audit's logger redacts every line). */
export type Audit = (record: AuditRecord) => void;

/** The host's audit: lines are batched per turn of the event loop (see createAuditDestination). */
export interface AuditSink extends Audit {
  /** Writes every line taken so far, synchronously. */
  flush(): void;
  /** Flushes and closes the audit file; the host calls it when it closes. */
  close(): void;
}

/**
 * The host's audit. Each line is the JSON a pino logger at `info` with `base: { kind: "audit" }` and ISO times
 * writes (`level`, `time`, `kind`, the record's fields in order, `msg`), built here directly: a call's audit line is
 * on every call's path, and a general logger's serialiser cost about a tenth of a plain call's CPU. Redaction is a
 * log line's: every secret is replaced in the record's values, then in the finished line.
 */
export function createAudit(options: AuditOptions, redactor: Redactor): AuditSink {
  const destination = createAuditDestination(options.file);
  const now = isoClock();
  const lineOf = (record: AuditRecord, time: string) => {
    const fields = fieldsOf(redactor.active ? redacted(record, redactor) : record);
    const line = `{"level":30,"time":"${time}","kind":"audit",${fields}"msg":"tool call"}\n`;
    return redactor.active ? redactor.string(line) : line;
  };
  const audit = (record: AuditRecord) => {
    const time = now();
    // A brief is made of the arguments (a skill's quotes them, an upstream tool's names every one): it goes with them.
    const taken =
      options.arguments || (record.arguments === undefined && record.brief === undefined)
        ? record
        : { ...record, brief: undefined, arguments: undefined };
    // A line of strings and numbers is made when its batch is written, after the answer has gone out (the write
    // itself always came after it). Objects (arguments, a field a capability made one) may change after the call,
    // so their line is made now, from what they hold now.
    destination.write(isFlat(taken) ? () => laterLineOf(taken, time) : lineOf(taken, time));
  };
  // Made in the turn after the call, where nothing would catch a throw: a line that cannot be made is written as one
  // that says so, with the call's trace id and tool (the host's own strings), and the server keeps serving.
  const laterLineOf = (record: AuditRecord, time: string) => {
    try {
      return lineOf(record, time);
    } catch (error) {
      const said = JSON.stringify({ traceId: record.traceId, tool: record.tool }).slice(1, -1);
      const why = JSON.stringify(`audit line could not be made: ${error instanceof Error ? error.name : "error"}`);
      return `{"level":50,"time":"${time}","kind":"audit",${said},"msg":${why}}\n`;
    }
  };
  return Object.assign(audit, { flush: () => destination.flushSync(), close: () => destination.end() });
}

// --- internal ---

/**
 * The record with every secret replaced in its values, as `redactor.value` would copy it (its field names are the
 * host's own, and the finished line is redacted again): made as one literal, a copy of one shape, which is cheaper
 * to make and to write than a general deep copy.
 */
function redacted(record: AuditRecord, redactor: Redactor): AuditRecord {
  // Each field as `value` would redact it, whatever a capability managed to put in it (an error code that is not a
  // string, say): strings scanned, objects deep-copied, other values kept.
  const field = <T>(value: T): T =>
    typeof value === "string"
      ? (redactor.string(value) as T)
      : typeof value === "object" && value !== null
        ? redactor.value(value)
        : value;
  return {
    traceId: field(record.traceId),
    tool: field(record.tool),
    instance: field(record.instance),
    skill: field(record.skill),
    risk: field(record.risk),
    brief: field(record.brief),
    outcome: field(record.outcome),
    durationMs: field(record.durationMs),
    caller: field(record.caller),
    arguments: field(record.arguments),
  };
}

/** Whether every field of the record is a string, a number or absent: nothing in it can change later. */
function isFlat(record: AuditRecord): boolean {
  return (
    record.arguments === undefined &&
    typeof record.outcome === "string" &&
    (record.brief === undefined || typeof record.brief === "string") &&
    (record.caller === undefined || typeof record.caller === "string")
  );
}

/** The record's fields as JSON members, each followed by a comma; arguments that JSON cannot carry are named so. */
function fieldsOf(record: AuditRecord): string {
  let json: string;
  try {
    json = JSON.stringify(record);
  } catch {
    json = JSON.stringify({ ...record, arguments: "[arguments JSON cannot carry]" });
  }
  return json.length > 2 ? `${json.slice(1, -1)},` : "";
}

/** The time now as an ISO string, made once per millisecond: many calls share one. */
function isoClock(): () => string {
  let at = -1;
  let iso = "";
  return () => {
    const ms = Date.now();
    if (ms !== at) {
      at = ms;
      iso = new Date(ms).toISOString();
    }
    return iso;
  };
}

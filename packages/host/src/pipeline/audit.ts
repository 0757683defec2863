import path from "node:path";
import pino from "pino";
import { hostLoggerOptions } from "../log.js";
import type { Redactor } from "./redact.js";

/** One audit line: what was called, by whom, and how it ended. Arguments only when the manifest asks. */
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
  arguments?: boolean;
}

/** Writes one JSON line per call, every known secret redacted (the audit's logger redacts every line). */
export type Audit = (record: AuditRecord) => void;

export function createAudit(options: AuditOptions, redactor: Redactor): Audit {
  const destination =
    options.file === undefined
      ? pino.destination({ dest: 2, sync: true })
      : pino.destination({ dest: path.resolve(options.file), sync: true, mkdir: true, append: true });
  const logger = pino(
    {
      base: { kind: "audit" },
      timestamp: pino.stdTimeFunctions.isoTime,
      messageKey: "msg",
      ...hostLoggerOptions(redactor),
    },
    destination,
  );
  return (record) => {
    logger.info(options.arguments ? record : { ...record, arguments: undefined }, "tool call");
  };
}

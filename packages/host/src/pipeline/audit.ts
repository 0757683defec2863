import pino from "pino";
import { hostLoggerOptions } from "../log.js";
import { createAuditDestination } from "./audit-destination.js";
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

/** The host's audit: lines are batched per turn of the event loop (see createAuditDestination). */
export interface AuditSink extends Audit {
  /** Writes every line taken so far, synchronously. */
  flush(): void;
  /** Flushes and closes the audit file; the host calls it when it closes. */
  close(): void;
}

export function createAudit(options: AuditOptions, redactor: Redactor): AuditSink {
  const destination = createAuditDestination(options.file);
  const logger = pino(
    {
      base: { kind: "audit" },
      timestamp: pino.stdTimeFunctions.isoTime,
      messageKey: "msg",
      ...hostLoggerOptions(redactor),
    },
    destination,
  );
  const audit = (record: AuditRecord) => {
    logger.info(options.arguments ? record : { ...record, arguments: undefined }, "tool call");
  };
  return Object.assign(audit, { flush: () => destination.flushSync(), close: () => destination.end() });
}

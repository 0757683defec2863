import type { Logger } from "pino";
import pino from "pino";

export type { Logger };

/** Options for {@link createLogger}. */
export interface LoggerOptions {
  /** @default "info", or the SKILLPORT_LOG_LEVEL environment variable */
  level?: string;
}

/**
 * The host's logger: JSON lines on stderr, never stdout (stdout belongs to the stdio transport).
 * Synchronous writes, so nothing is lost when a short command exits.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    { level: options.level ?? process.env.SKILLPORT_LOG_LEVEL ?? "info", base: { name: "skillport" } },
    pino.destination({ dest: 2, sync: true }),
  );
}

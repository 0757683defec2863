import type { Logger, LoggerOptions as PinoOptions } from "pino";
import pino from "pino";
import type { Redactor } from "../redaction/redactor.js";

export type { Logger };

/** Options for {@link createLogger}. */
export interface LoggerOptions {
  /** @default "info", or the SKILLPORT_LOG_LEVEL environment variable */
  level?: string;
  /**
   * Replaces every secret it knows in every line: the arguments of each call (messages, data, errors with their
   * causes), child bindings, and the finished line. Secrets it learns later count from then on.
   * @default no redaction
   */
  redactor?: Redactor;
}

/**
 * The host's logger: JSON lines on stderr, never stdout (stdout belongs to the stdio transport).
 * Synchronous writes, so nothing is lost when a short command exits.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? process.env.SKILLPORT_LOG_LEVEL ?? "info",
      base: { name: "skillport" },
      ...(options.redactor === undefined ? {} : hostLoggerOptions(options.redactor)),
    },
    pino.destination({ dest: 2, sync: true }),
  );
}

// --- internal ---

/**
 * The pino options that put every line of a logger through the redactor, so no log path can skip it: the
 * `logMethod` hook redacts each call's arguments before pino formats them (errors with their message, stack,
 * fields and `cause` chain), and the `streamWrite` hook redacts the finished line, child bindings included.
 */
export function hostLoggerOptions(redactor: Redactor): Pick<PinoOptions, "hooks"> {
  return {
    hooks: {
      logMethod(args, method) {
        method.apply(this, redactor.active ? (redactArguments(args, redactor) as typeof args) : args);
      },
      streamWrite: (line) => (redactor.active ? redactor.string(line) : line),
    },
  };
}

/**
 * A logger that redacts the arguments of every call and the bindings of every child before handing them to
 * `logger`: for a logger the host did not make, whose stream it cannot hook.
 */
export function redactingLogger(logger: Logger, redactor: Redactor): Logger {
  const levels = new Set(Object.keys(logger.levels.values));
  return new Proxy(logger, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof property !== "string" || typeof value !== "function") return value;
      if (levels.has(property)) {
        return (...args: unknown[]) =>
          (value as (...a: unknown[]) => void).apply(target, redactor.active ? redactArguments(args, redactor) : args);
      }
      if (property === "child") {
        return (bindings: Record<string, unknown>, options?: Parameters<Logger["child"]>[1]) =>
          redactingLogger(target.child(redactor.value(bindings), options) as unknown as Logger, redactor);
      }
      return value.bind(target);
    },
  });
}

/**
 * A log call's arguments with every secret replaced (an Error stays an Error, for pino to format). Arguments that
 * cannot be read (a getter that throws, a revoked proxy) drop the line's content rather than its redaction.
 */
function redactArguments(args: readonly unknown[], redactor: Redactor): unknown[] {
  try {
    return redactor.value([...args]);
  } catch (error) {
    return [{ redaction: (error as Error | undefined)?.name ?? "failed" }, "a log line could not be read to redact it"];
  }
}

import { format } from "node:util";
import type { Logger } from "./logger.js";

/**
 * Keeps a serving process up when a capability leaves a stray rejected promise or throws from a timer: the
 * failure is logged and the server keeps answering. Routes console output through the logger too: an in-process
 * capability's `console.log` never reaches stdout (the stdio transport's), and no console line skips redaction.
 * Pass `host.logger`, which redacts every line. Install it in long-running serve commands, not in libraries.
 */
export function installProcessGuards(logger: Logger): void {
  process.on("unhandledRejection", (reason) => {
    logger.error({ err: reason }, "an unhandled promise rejection was caught; the server keeps serving");
  });
  process.on("uncaughtException", (error) => {
    logger.error({ err: error }, "an uncaught exception was caught; the server keeps serving");
  });
  const to =
    (level: "info" | "warn") =>
    (...args: unknown[]): void =>
      logger[level]({ console: format(...args) }, "console output");
  Object.assign(console, {
    log: to("info"),
    info: to("info"),
    debug: to("info"),
    dir: to("info"),
    table: to("info"),
    warn: to("warn"),
    error: to("warn"),
    trace: to("warn"),
  });
}

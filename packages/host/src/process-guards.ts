import type { Logger } from "./log.js";

/**
 * Keeps a serving process up when a capability leaves a stray rejected promise or throws from a timer: the
 * failure is logged and the server keeps answering. Install it in long-running serve commands, not in libraries.
 */
export function installProcessGuards(logger: Logger): void {
  process.on("unhandledRejection", (reason) => {
    logger.error({ err: reason }, "an unhandled promise rejection was caught; the server keeps serving");
  });
  process.on("uncaughtException", (error) => {
    logger.error({ err: error }, "an uncaught exception was caught; the server keeps serving");
  });
}

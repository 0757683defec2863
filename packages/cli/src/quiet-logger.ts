import type { Logger } from "@skillport/host";
import { createLogger } from "@skillport/host";

/** Commands that print results keep the log to warnings unless SKILLPORT_LOG_LEVEL says otherwise. */
export function quietLogger(): Logger {
  return createLogger({ level: process.env.SKILLPORT_LOG_LEVEL ?? "warn" });
}

import type { MessagePort } from "node:worker_threads";
import type { HostOpenOptions } from "./load-host.js";

/** What the worker is started with: the port MCP travels on, and the host to build. */
export interface WorkerStart {
  port: MessagePort;
  host: Omit<HostOpenOptions, "modules">;
}

/** The one report a worker sends its parent (on `parentPort`): its host serves, or why it does not. */
export type WorkerReport = { type: "ready" } | { type: "failed"; missing: boolean; message: string };

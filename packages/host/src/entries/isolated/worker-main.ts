// The entry of an isolation worker thread: runs one skill instance (worker-runner) over the thread's port.
// Receives only its own instance's config and the credentials its skill reads itself (workerData).
import { parentPort, workerData } from "node:worker_threads";
import type { ToWorker, WorkerSetup } from "./worker-protocol.js";
import { runIsolated } from "./worker-runner.js";

const port = parentPort;
if (port === null) throw new Error("worker-main must run in a worker thread");
await runIsolated(workerData as WorkerSetup, {
  send: (message) => port.postMessage(message),
  onMessage: (listener) => port.on("message", (message: ToWorker) => listener(message)),
});

// The entry of an isolated child process: waits for its setup on the IPC channel (credentials never travel in
// the environment or the command line), then runs one skill instance (worker-runner) over that channel.

import { messageOf } from "../../errors/host-error.js";
import type { FromWorker, ToWorker } from "./worker-protocol.js";
import { runIsolated } from "./worker-runner.js";

const send = process.send?.bind(process);
if (send === undefined) throw new Error("process-main must run as a child process with an IPC channel");
// The host is gone (or closed the channel): nothing is left to answer.
process.on("disconnect", () => process.exit(0));
process.once("message", (first: ToWorker) => {
  if (first.type !== "setup") throw new Error(`process-main expected its setup first, got "${first.type}"`);
  void runIsolated(first.setup, {
    send: (message: FromWorker) => void send(message),
    onMessage: (listener) => process.on("message", (message: ToWorker) => listener(message)),
  }).catch((error: unknown) => {
    process.stderr.write(`the skill could not be started: ${messageOf(error)}\n`);
    process.exit(70);
  });
});

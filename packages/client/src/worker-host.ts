// The worker thread's main (built as dist/worker-host.js): builds a Skillport host from the manifest it was
// given and pipes MCP between the MessagePort it was handed and the host's in-memory transport. It reports once
// on parentPort: "ready", or "failed" with the reason.
import { parentPort, workerData } from "node:worker_threads";
import { MessagePortTransport } from "./message-port-transport.js";
import { loadHost } from "./transports/load-host.js";
import type { WorkerReport, WorkerStart } from "./transports/worker-protocol.js";

const report = (message: WorkerReport) => parentPort?.postMessage(message);
const start = workerData as WorkerStart;

// A manifest's `servers` are mounted through this same client, imported only when one has servers.
const runtime = await loadHost(() => import("./node.js"));
if (!("open" in runtime)) {
  report({ type: "failed", missing: runtime.missing, message: runtime.message });
} else {
  try {
    const served = await runtime.open(start.host);
    const outside = new MessagePortTransport(start.port);
    const inside = served.transport;
    // Each side's messages go to the other, as they are; either side closing closes both and ends the worker.
    outside.onmessage = (message) => void inside.send(message).catch(() => undefined);
    inside.onmessage = (message) => void outside.send(message).catch(() => undefined);
    const closeAll = async () => {
      await Promise.allSettled([outside.close(), inside.close(), served.close()]);
    };
    outside.onclose = () => void closeAll();
    inside.onclose = () => void closeAll();
    await inside.start();
    await outside.start();
    report({ type: "ready" });
  } catch (cause) {
    report({ type: "failed", missing: false, message: cause instanceof Error ? cause.message : String(cause) });
  }
}

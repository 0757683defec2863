import { fileURLToPath } from "node:url";
import { MessageChannel, Worker } from "node:worker_threads";
import { hideSecrets, inheritedEnv, readCredentials } from "../credentials.js";
import { clientError } from "../errors.js";
import type { Connector } from "../handle.js";
import { MessagePortTransport } from "../message-port-transport.js";
import type { WorkerSpec } from "../types.js";
import type { WorkerReport, WorkerStart } from "./worker-protocol.js";

/**
 * A Skillport host in a worker thread, over a MessagePort (the 2025-11-25 era). The worker's `process.env` is
 * exactly the spec's `env`, its `inheritEnv` variables and its credentials. Its stdout and stderr are kept (the
 * last 4 KiB, for messages), not written to this process's. The worker loads `@skillport/host` itself and says
 * whether it could; a worker that exits closes the transport, so the handle fails with the reason.
 */
export function workerConnector(spec: WorkerSpec): Connector {
  const source = spec.name ?? (typeof spec.manifest === "string" ? spec.manifest : "worker");
  return {
    transport: "worker",
    source,
    versionNegotiation: undefined,
    async open() {
      const reading = await readCredentials(source, spec.credentials);
      if (!reading.ok) return reading;
      const env: Record<string, string> = { ...inheritedEnv(spec.inheritEnv), ...spec.env };
      for (const { value, to } of reading.present) env[to.env] = value;
      const { port1, port2 } = new MessageChannel();
      const start: WorkerStart = {
        port: port2,
        host: {
          manifest: spec.manifest,
          dir: spec.dir,
          lock: spec.lock,
          logLevel: spec.logLevel,
        },
      };
      const worker = new Worker(WORKER_MAIN, {
        workerData: start,
        transferList: [port2],
        env,
        stdout: true,
        stderr: true,
        ...(spec.resourceLimits === undefined ? {} : { resourceLimits: spec.resourceLimits }),
      });
      let output = "";
      const keep = (chunk: Buffer) => {
        output = (output + chunk.toString("utf8")).slice(-TAIL_BYTES);
      };
      worker.stdout.on("data", keep);
      worker.stderr.on("data", keep);
      const transport = new MessagePortTransport(port1);
      let exitCode: number | undefined;
      const exited = new Promise<void>((resolve) => {
        worker.once("exit", (code) => {
          exitCode = code;
          void transport.close();
          resolve();
        });
      });
      // The worker reports once: its host is serving, or why not (HOST_MISSING, an invalid manifest, …).
      const report = await new Promise<WorkerReport | { type: "exit"; error?: Error }>((resolve) => {
        worker.once("message", (message: WorkerReport) => resolve(message));
        worker.once("error", (error) => resolve({ type: "exit", error }));
        void exited.then(() => resolve({ type: "exit" }));
      });
      if (report.type !== "ready") {
        await worker.terminate();
        transport.onclose = undefined;
        port1.close();
        const why =
          report.type === "failed"
            ? report.message
            : `the worker ended before its host was ready${report.error === undefined ? "" : `: ${report.error.message}`}`;
        const tail = hideSecrets(output.trim(), reading.secrets);
        return {
          ok: false,
          error: clientError(
            source,
            report.type === "failed" && report.missing ? "HOST_MISSING" : "UNAVAILABLE",
            tail === "" ? why : `${why}; its output ended with: ${tail}`,
          ),
        };
      }
      return {
        ok: true,
        secrets: reading.secrets,
        opened: {
          transport,
          dispose: async () => {
            await worker.terminate();
            await exited;
          },
          closedDetail: () => {
            const tail = output.trim();
            const how = exitCode === undefined ? "the worker was closed" : `the worker exited with code ${exitCode}`;
            return tail === "" ? how : `${how}; its output ended with: ${tail}`;
          },
        },
      };
    },
  };
}

// --- internal ---

const TAIL_BYTES = 4096;
const WORKER_MAIN = fileURLToPath(new URL("./worker-host.js", import.meta.url));

import path from "node:path";
import { DEFAULT_INHERITED_ENV_VARS, StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { inheritedEnv, readCredentials } from "../credentials.js";
import type { Connector } from "../handle.js";
import { negotiation } from "../handle.js";
import type { StdioSpec } from "../types.js";

/**
 * A child process over stdin/stdout. Its environment is exactly the spec's `env`, the `inheritEnv` variables
 * this process has, and the credentials. The SDK's StdioClientTransport adds its own default variables (HOME,
 * PATH, USER, …) under whatever environment it is given; each of those the spec did not ask for is passed as
 * undefined, which Node's spawn leaves out, so the child gets nothing it was not given.
 */
export function stdioConnector(spec: StdioSpec): Connector {
  const source = spec.name ?? [spec.command, ...(spec.args ?? []).slice(0, 1)].map((p) => path.basename(p)).join(" ");
  return {
    transport: "stdio",
    source,
    versionNegotiation: negotiation(spec.protocol ?? "2025-11-25"),
    async open() {
      const reading = await readCredentials(source, spec.credentials);
      if (!reading.ok) return reading;
      const env: Record<string, string | undefined> = { ...inheritedEnv(spec.inheritEnv), ...spec.env };
      for (const { value, to } of reading.present) env[to.env] = value;
      for (const name of DEFAULT_INHERITED_ENV_VARS) if (!(name in env)) env[name] = undefined;
      const mode = spec.stderr ?? "tail";
      const transport = new StdioClientTransport({
        command: spec.command,
        args: spec.args ?? [],
        env: env as Record<string, string>,
        stderr: mode === "inherit" ? "inherit" : mode === "ignore" ? "ignore" : "pipe",
        ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }),
      });
      const tail = createTail();
      transport.stderr?.on("data", (chunk: Buffer) => {
        const text = chunk.toString("utf8");
        if (typeof mode === "function") mode(text);
        else tail.add(text);
      });
      let pid: number | null = null;
      const started = transport.start.bind(transport);
      transport.start = async () => {
        await started();
        pid = transport.pid;
      };
      return {
        ok: true,
        secrets: reading.secrets,
        opened: {
          transport,
          closedDetail: () => {
            const last = tail.text().trim();
            const who = pid === null ? "the server process" : `the server process (pid ${pid})`;
            return last === "" ? `${who} ended` : `${who} ended; its stderr ended with: ${last}`;
          },
        },
      };
    },
  };
}

// --- internal ---

const TAIL_BYTES = 4096;

/** The last few KiB of a stream, for messages. */
function createTail() {
  let text = "";
  return {
    add(chunk: string) {
      text = (text + chunk).slice(-TAIL_BYTES);
    },
    text: () => text,
  };
}

import path from "node:path";
import { SERVER_DEFAULTS } from "../manifest/defaults.js";
import type { ServerEntry } from "../manifest/manifest.js";
import type { PatternEngine, SchemaCompiler } from "../schema/ajv.js";
import type { ToolOwner } from "./tool-entry.js";
import type { CallerHandles } from "./upstream-callers.js";
import type {
  GivenCredential,
  UpstreamHandle,
  UpstreamServerInfo,
  UpstreamSpec,
  UpstreamTool,
} from "./upstream-client.js";
import type { UpstreamPin } from "./upstream-pin.js";

/** One enabled `servers` entry: its handle (nothing opened until used), its limits and what it lists. */
export interface UpstreamServer extends ToolOwner {
  readonly transport: "stdio" | "http";
  /** Undefined when a variable its entry names is not set: then nothing is ever started. */
  readonly handle: UpstreamHandle | undefined;
  /**
   * The connection a call goes through: `handle`, or for a server called per caller (`auth`), the caller's own
   * (see CallerHandles).
   */
  readonly callers: CallerHandles;
  /** The values read from the host's environment for its `env` and `headers`: secrets to the redactor. */
  readonly secrets: readonly string[];
  /** A call's time limit. */
  readonly timeoutMs: number;
  /** The entry as written. */
  readonly entry: ServerEntry;
  /** Its tools as listed when the table was built: from the lock, or from the server at start. */
  readonly tools: readonly UpstreamTool[];
  /**
   * How the server named itself (its `serverInfo`), from the lock or from its handshake at start: what `packageName`
   * and `version` say. Undefined when neither told (a lock written before it was recorded).
   */
  readonly serverInfo: UpstreamServerInfo | undefined;
  /** What its tools were reviewed as (the lock, or the first list seen): every list it sends later passes it. */
  readonly pin: UpstreamPin;
  /** Compiles a pattern of its schemas for RE2 (linear time); throws what RE2 cannot run. */
  readonly linearRegExp: PatternEngine;
  /** Compiles its tools' schemas: every pattern by `linearRegExp`, no `$id` shared with another schema. */
  readonly compiler: SchemaCompiler;
}

/**
 * The spec of a `servers` entry with every `${NAME}` of its `env`, `headers` and `url` replaced from `env`, and what
 * is missing: each variable that is not set (or empty), named with its place. `env` and `headers` values go to the
 * client as credentials, so the client keeps them out of its messages; every value read is one of the entry's
 * secrets. The command line and folder are taken as written (the loader refuses a variable there).
 */
export function upstreamSpec(
  entry: ServerEntry,
  where: string,
  dir: string,
  env: Readonly<Record<string, string | undefined>>,
): { spec: UpstreamSpec; secrets: string[]; missing: string[] } {
  const missing: string[] = [];
  const secrets: string[] = [];
  const expand = (text: string, at: string): string =>
    text.replace(VARIABLE, (_, name: string) => {
      const value = env[name];
      if (value === undefined || value === "") {
        missing.push(
          `${at} needs the environment variable ${name}, which is not set; set it where the host runs (it is read at start)`,
        );
        return "";
      }
      secrets.push(value);
      return value;
    });
  const startTimeoutMs = entry.startTimeoutMs ?? SERVER_DEFAULTS.startTimeoutMs;
  const maxResultBytes = entry.maxResultBytes ?? SERVER_DEFAULTS.maxResultBytes;
  const name = `${where} ("${entry.mcp}")`;
  let spec: UpstreamSpec;
  if (entry.url !== undefined) {
    const url = expand(entry.url, `${where}.url`);
    const credentials: Record<string, GivenCredential<{ header: string }>> = {};
    for (const [header, value] of Object.entries(entry.headers ?? {})) {
      credentials[`header ${header}`] = {
        from: { value: expand(value, `${where}.headers.${header}`) },
        to: { header },
      };
    }
    spec = { transport: "http", name, url, headers: {}, credentials, startTimeoutMs, maxResultBytes };
  } else {
    // The command line and folder are taken as written: the manifest's loader refuses a `${NAME}` in them (what the
    // host read would show in the process list, unredacted).
    const command = entry.command ?? "";
    const args = [...(entry.args ?? [])];
    const cwd = path.resolve(dir, entry.cwd ?? ".");
    const credentials: Record<string, GivenCredential<{ env: string }>> = {};
    for (const [variable, value] of Object.entries(entry.env ?? {})) {
      credentials[`env ${variable}`] = {
        from: { value: expand(value, `${where}.env.${variable}`) },
        to: { env: variable },
      };
    }
    spec = {
      transport: "stdio",
      name,
      command,
      args,
      cwd,
      env: {},
      inheritEnv: [...(entry.inheritEnv ?? SERVER_DEFAULTS.inheritEnv)],
      credentials,
      startTimeoutMs,
      maxResultBytes,
      ...(entry.idleStopMs === undefined ? {} : { idleTimeoutMs: entry.idleStopMs }),
    };
  }
  return { spec, secrets: secrets.filter((s) => s !== ""), missing };
}

// --- internal ---

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

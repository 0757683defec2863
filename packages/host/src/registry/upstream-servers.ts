import type { UpstreamClient, UpstreamServer, UpstreamTool } from "../entries/upstream-server.js";
import { upstreamSpec } from "../entries/upstream-server.js";
import type { HostErrorCode } from "../errors.js";
import { SERVER_DEFAULTS } from "../manifest/defaults.js";
import type { LoadedManifest, ServerEntry } from "../manifest/manifest.js";
import type { LockFile } from "./lock.js";
import { hashOf, lockCommand, serverSourceOf } from "./lock.js";

/** How {@link openServers} reaches and lists the manifest's upstream servers. */
export interface OpenServersOptions {
  /** Imports the client, only when there are enabled servers. */
  client: UpstreamClient | undefined;
  /** The lock, when the host starts from one: a server it lists is not started before its first call. */
  lock: LockFile | undefined;
  lockMode: "auto" | "frozen" | undefined;
  /** Where `${NAME}` is read from. */
  env: Readonly<Record<string, string | undefined>>;
}

/** The enabled servers with their tools, what stops the host, and the servers that could not be listed. */
export interface OpenedServers {
  servers: UpstreamServer[];
  problems: { code: HostErrorCode; message: string }[];
  failures: { source: string; message: string }[];
}

/**
 * Opens a handle on every enabled `servers` entry (nothing is started by that) and finds each one's tools: from the
 * lock when it lists the entry as written, else by starting the server and asking it now. A server with a variable
 * that is not set is never started: with a lock its tools are listed and answer CREDENTIALS_MISSING, without one
 * they are not served; either way its problem is reported with the others.
 */
export async function openServers(manifest: LoadedManifest, options: OpenServersOptions): Promise<OpenedServers> {
  const problems: OpenedServers["problems"] = [];
  const failures: OpenedServers["failures"] = [];
  const enabled = [...manifest.servers.entries()].filter(([, entry]) => entry.enabled !== false);
  if (enabled.length === 0) return { servers: [], problems, failures };
  if (options.client === undefined) {
    problems.push({
      code: "CONFIG_INVALID",
      message: `servers: this host was created without a way to reach MCP servers; pass createHost({ client: () => import("@skillport/client/node") }) (the skillport command does)`,
    });
    return { servers: [], problems, failures };
  }
  const { connect } = await options.client();
  const opened = await Promise.all(
    enabled.map(async ([index, entry]): Promise<UpstreamServer | undefined> => {
      const where = `servers[${index}]`;
      const source = `${where} ("${entry.mcp}")`;
      const { spec, secrets, missing } = upstreamSpec(entry, where, manifest.dir, options.env);
      const handle = missing.length > 0 ? undefined : connect(spec);
      const locked = options.lock?.servers?.find((s) => s.entry === index && s.source === serverSourceOf(entry));
      let tools: readonly UpstreamTool[];
      if (locked !== undefined && Array.isArray(locked.tools) && hashOf(locked.tools) === locked.hash) {
        tools = locked.tools;
      }
      else if (options.lock !== undefined && options.lockMode === "frozen") {
        problems.push({
          code: "LOCK_STALE",
          message: `${source} is not in the lock as written; run ${lockCommand(manifest)}`,
        });
        return undefined;
      } else if (handle === undefined) {
        failures.push({ source, message: `not started: ${missing.join("; ")}` });
        return undefined;
      } else {
        const started = await handle.start();
        if (!started.ok) {
          failures.push({ source, message: started.error.message });
          await handle.stop();
          return undefined;
        }
        tools = started.tools;
      }
      return {
        id: entry.mcp,
        index,
        where,
        source,
        packageName: clip(serverSourceOf(entry)),
        version: "upstream",
        missingCredentials: missing,
        allow: new Set(entry.allow ?? []),
        concurrency: entry.concurrency ?? SERVER_DEFAULTS.concurrency,
        queue: entry.queue ?? SERVER_DEFAULTS.queue,
        transport: spec.transport,
        handle,
        secrets,
        timeoutMs: entry.timeoutMs ?? SERVER_DEFAULTS.timeoutMs,
        entry,
        tools,
      };
    }),
  );
  return { servers: opened.filter((s): s is UpstreamServer => s !== undefined), problems, failures };
}

/** The tools a server entry serves, and the problems of its tools options (names the server does not list). */
export function selectServerTools(
  server: UpstreamServer,
  problems: { code: HostErrorCode; message: string }[],
): UpstreamTool[] {
  const entry: ServerEntry = server.entry;
  const { include, exclude } = entry.tools ?? {};
  const names = new Set(server.tools.map((t) => t.name));
  const scoped = Object.keys(entry.scopes ?? {}).filter((name) => name !== "*");
  for (const [field, list] of [
    ["tools.include", include],
    ["tools.exclude", exclude],
    ["tools.rename", Object.keys(entry.tools?.rename ?? {})],
    ["tools.override", Object.keys(entry.tools?.override ?? {})],
    ["scopes", scoped],
    ["allow", entry.allow],
  ] as const) {
    for (const name of list ?? []) {
      if (!names.has(name)) {
        problems.push({
          code: "MANIFEST_INVALID",
          message: `${server.where}.${field}: server "${server.id}" lists no tool "${name}"; its tools are ${[...names].join(", ")}`,
        });
      }
    }
  }
  return server.tools.filter(
    (t) => (include === undefined || include.includes(t.name)) && !(exclude ?? []).includes(t.name),
  );
}

// --- internal ---

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

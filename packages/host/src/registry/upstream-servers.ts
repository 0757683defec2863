import path from "node:path";
import { envelopeSchema } from "@skillport/core";
import type { CallerSlot, ExchangeTarget, OAuthTarget } from "../credentials/caller-slot.js";
import type { ToolEntry, ToolListing } from "../entries/tool-entry.js";
import { callerHandles, withCredential } from "../entries/upstream-callers.js";
import type { UpstreamClient, UpstreamHandle, UpstreamServerInfo, UpstreamTool } from "../entries/upstream-client.js";
import { pinUpstream, upstreamRisk } from "../entries/upstream-pin.js";
import { withRestartBackoff } from "../entries/upstream-restart.js";
import type { UpstreamServer } from "../entries/upstream-server.js";
import { upstreamSpec } from "../entries/upstream-server.js";
import { upstreamToolEntry } from "../entries/upstream-tool.js";
import type { HostErrorCode } from "../errors/host-error.js";
import type { Logger } from "../logging/logger.js";
import { createLogger } from "../logging/logger.js";
import { SERVER_DEFAULTS } from "../manifest/defaults.js";
import type { LoadedManifest, SecretSource, ServerEntry } from "../manifest/manifest.js";
import { readSecret } from "../manifest/read-secret.js";
import { lazyAjv } from "../schema/ajv.js";
import type { LockFile } from "./lock.js";
import { lockCommand, lockPathOf, matchesHash, serverSourceOf } from "./lock.js";
import { ownValue } from "./own-value.js";
import { isReservedKey } from "./scope-keys.js";
import { advertisedInput, FULL_NAME, hintsOf, toolScopes } from "./tool-naming.js";

/** How {@link openServers} reaches and lists the manifest's upstream servers. */
export interface OpenServersOptions {
  /** Imports the client, only when there are enabled servers. */
  client: UpstreamClient | undefined;
  /** The lock, when the host starts from one: a server it lists is not started before its first call. */
  lock: LockFile | undefined;
  lockMode: "auto" | "frozen" | undefined;
  /** Where `${NAME}` is read from. */
  env: Readonly<Record<string, string | undefined>>;
  /** Where a server's pin warns (a lowered risk, a tool the lock does not list). @default silent */
  logger?: Logger | undefined;
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
 * they are not served; either way its problem is reported with the others. Each server gets its pin: to the tools
 * the lock lists for it, else to the first it lists.
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
  const { connect, linearRegExp } = await options.client();
  if (typeof linearRegExp !== "function") {
    // Never a backtracking RegExp for a schema the host did not write.
    problems.push({
      code: "CONFIG_INVALID",
      message: `servers: the client this host was created with has no linearRegExp to run the servers' patterns in linear time; pass createHost({ client: () => import("@skillport/client/node") })`,
    });
    return { servers: [], problems, failures };
  }
  // One compiler for every server's schemas (no $id is shared between them), ajv loaded on the first call.
  const compiler = lazyAjv({ firstError: true, foreign: { regExp: linearRegExp } });
  const logger = options.logger ?? createLogger({ level: "silent" });
  const lock = { name: path.basename(lockPathOf(manifest)), command: lockCommand(manifest) };
  const opened = await Promise.all(
    enabled.map(async ([index, entry]): Promise<UpstreamServer | undefined> => {
      const where = `servers[${index}]`;
      const source = `${where} ("${entry.mcp}")`;
      const { spec, secrets, missing } = upstreamSpec(entry, where, manifest.dir, options.env);
      const restart = (handle: UpstreamHandle) =>
        withRestartBackoff(handle, source, {
          initialDelayMs: entry.restart?.initialDelayMs ?? SERVER_DEFAULTS.restart.initialDelayMs,
          maxDelayMs: entry.restart?.maxDelayMs ?? SERVER_DEFAULTS.restart.maxDelayMs,
        });
      const own = await serverSlot(entry, where, manifest.dir, options.env, missing);
      secrets.push(...own.secrets);
      // Called per caller, the server's own connection carries the host's listing credential, if it has one.
      const sharedSpec =
        entry.auth === undefined || own.listWith === undefined ? spec : withCredential(spec, entry.auth, own.listWith);
      const handle =
        missing.length > 0 || (entry.auth !== undefined && own.listWith === undefined)
          ? undefined
          : restart(connect(sharedSpec));
      const locked = options.lock?.servers?.find((s) => s.entry === index && s.source === serverSourceOf(entry));
      let tools: readonly UpstreamTool[];
      let serverInfo: UpstreamServerInfo | undefined;
      const fromLock = locked !== undefined && Array.isArray(locked.tools) && matchesHash(locked.tools, locked.hash);
      if (fromLock) {
        tools = locked.tools;
        serverInfo = serverInfoOf(locked.server);
      } else if (options.lock !== undefined && options.lockMode === "frozen") {
        problems.push({
          code: "LOCK_STALE",
          message: `${source} is not in the lock as written; run ${lockCommand(manifest)}`,
        });
        return undefined;
      } else if (handle === undefined && missing.length === 0) {
        failures.push({
          source,
          message: `is called per caller and the host has no credential to list its tools with: give ${where}.auth.listWith (a credential of the host's own), or start from a lock that lists them (skillport lock with listWith set)`,
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
        serverInfo = serverInfoOf(started.server);
      }
      return {
        id: entry.mcp,
        index,
        where,
        source,
        // Named as the server names itself, never by its command line; the mcp id until it has said.
        packageName: serverInfo?.name ?? entry.mcp,
        version: serverInfo?.version ?? "unknown",
        serverInfo,
        missingCredentials: missing,
        allow: new Set(entry.allow ?? []),
        concurrency: entry.concurrency ?? SERVER_DEFAULTS.concurrency,
        queue: entry.queue ?? SERVER_DEFAULTS.queue,
        transport: spec.transport,
        handle,
        callers: callerHandles(handle, spec, entry.auth, connect, restart),
        perCaller: own.slots,
        secrets,
        timeoutMs: entry.timeoutMs ?? SERVER_DEFAULTS.timeoutMs,
        entry,
        tools,
        pin: pinUpstream({ id: entry.mcp, source, locked: fromLock ? tools : undefined, lock, logger }),
        linearRegExp,
        compiler,
      };
    }),
  );
  return { servers: opened.filter((s): s is UpstreamServer => s !== undefined), problems, failures };
}

/**
 * A server entry's per-caller slot (its `auth`), with the secrets it reads now: the listing credential, the
 * exchange client's secret. A secret that is not set is missing (the server is not started).
 */
async function serverSlot(
  entry: ServerEntry,
  where: string,
  dir: string,
  env: Readonly<Record<string, string | undefined>>,
  missing: string[],
): Promise<{ slots: CallerSlot[]; listWith: string | undefined; secrets: string[] }> {
  const { auth } = entry;
  if (auth === undefined) return { slots: [], listWith: undefined, secrets: [] };
  const secrets: string[] = [];
  const read = async (source: SecretSource | undefined, field: string) => {
    if (source === undefined) return undefined;
    const reading = await readSecret(source, dir, env);
    if (reading.value === undefined) missing.push(`${where}.auth.${field} needs ${reading.where}, which is not set`);
    else secrets.push(reading.value);
    return reading.value;
  };
  const listWith = await read(auth.listWith, "listWith");
  const base = {
    id: `${entry.mcp}.token`,
    owner: entry.mcp,
    name: "token",
    where: `${where}.auth`,
    label: auth.label ?? `the server "${entry.mcp}"`,
  };
  if (auth.perCaller === "token") {
    const fallback = await read(auth.fallback, "fallback");
    return { slots: [{ ...base, via: "token", fallback }], listWith, secrets };
  }
  if (auth.perCaller === "oauth") {
    const clientSecret = await read(auth.clientSecret, "clientSecret");
    const oauth: OAuthTarget = {
      serverUrl: entry.url ?? "",
      kind: "mcp-server",
      ...(auth.clientId === undefined ? {} : { clientId: auth.clientId }),
      ...(clientSecret === undefined ? {} : { clientSecret }),
      ...(auth.scopes === undefined ? {} : { scopes: auth.scopes }),
    };
    return { slots: [{ ...base, via: "oauth", fallback: undefined, oauth }], listWith, secrets };
  }
  const clientSecret = (await read(auth.clientSecret, "clientSecret")) ?? "";
  const exchange: ExchangeTarget = {
    issuer: auth.issuer,
    audience: auth.audience,
    clientId: auth.clientId,
    clientSecret,
    ...(auth.resource === undefined ? {} : { resource: auth.resource }),
    ...(auth.scopes === undefined ? {} : { scopes: auth.scopes }),
  };
  return { slots: [{ ...base, via: "exchange", fallback: undefined, exchange }], listWith, secrets };
}

/** One upstream tool as a row of the table: its full name, its entry and its listing. */
export interface ServerRow {
  fullName: string;
  entry: ToolEntry;
  listing: ToolListing;
}

/**
 * The rows an upstream server's tools make, as its entry selects, renames and overrides them, each as the server's
 * pin lets it be served (a tool the lock does not list makes none); the problems of its options (names the server
 * does not list, full names MCP does not take) join `problems`.
 */
export function serverRows(
  server: UpstreamServer,
  tools: readonly UpstreamTool[],
  manifest: LoadedManifest,
  problems: { code: HostErrorCode; message: string }[],
): ServerRow[] {
  const rows: ServerRow[] = [];
  for (const listed of selectServerTools(server, tools, problems)) {
    const { tool } = server.pin.review(listed);
    if (tool === undefined) continue;
    const name = ownValue(server.entry.tools?.rename, tool.name) ?? tool.name;
    const fullName = `${server.id}${manifest.separator}${name}`;
    if (!FULL_NAME.test(fullName)) {
      problems.push({
        code: "SKILL_INVALID",
        message: `${server.source}: the full tool name "${fullName}" is invalid for MCP (letters, digits, ".", "_", "-", at most 128); rename it in tools.rename`,
      });
      continue;
    }
    const override = ownValue(server.entry.tools?.override, tool.name) ?? {};
    const title = override.title ?? tool.title ?? (tool.annotations?.title as string | undefined) ?? tool.name;
    const { $schema: _dialect, ...inputSchema } = tool.inputSchema;
    const listing: ToolListing = {
      name: fullName,
      title,
      description: override.description ?? tool.description ?? "",
      inputSchema: advertisedInput(
        { risk: upstreamRisk(tool), inputSchema: { type: "object", ...inputSchema } },
        manifest.confirmation.fallback,
      ),
      outputSchema: envelopeSchema(undefined) as ToolListing["outputSchema"],
      annotations: { ...tool.annotations, title, ...override.annotations },
    };
    // A tool the server may run as a task is listed so: the host makes a task of its call for a client that
    // declared the extension, and the server's own task is waited for by the client (cancel reaches it).
    const taskSupport = tool.execution?.taskSupport;
    if (taskSupport === "optional" || taskSupport === "required") listing.execution = { taskSupport };
    const hints = hintsOf(server.entry.alwaysLoad, override);
    if (hints !== undefined) listing._meta = hints;
    const scopes = toolScopes(server.entry, tool.name);
    rows.push({ fullName, listing, entry: upstreamToolEntry(server, { fullName, tool, listing, scopes }) });
  }
  return rows;
}

/** What {@link watchServers} keeps up to date. */
export interface WatchServersOptions {
  manifest: LoadedManifest;
  servers: readonly UpstreamServer[];
  /** The table: the servers' rows in it are replaced when their tools change. */
  tools: Map<string, ToolEntry>;
  /** The skills' listings, which never change at run time. */
  skillListings: readonly ToolListing[];
  /** The listings at start. */
  listings: readonly ToolListing[];
  /** Names no server's tool may take (the discovery tools'). */
  reserved?: ReadonlySet<string>;
  logger: Logger | undefined;
}

/**
 * Keeps the table up to date with the servers' own lists: when a server announces `notifications/tools/list_changed`
 * (the client fetches its new list), its rows are replaced. A new name that another source already serves is hidden
 * — a name already served keeps it (skills, and servers whose tools came first) — with a warning naming both; it is
 * served once the other goes away. Listeners hear of every change, to tell clients (`listChanged`).
 */
export function watchServers(options: WatchServersOptions) {
  const { manifest, servers, tools, skillListings } = options;
  const logger = options.logger ?? createLogger({ level: "silent" });
  const listeners = new Set<() => void>();
  const held = new Map<UpstreamServer, string[]>();
  const hidden = new Map<UpstreamServer, ServerRow[]>();
  for (const server of servers) {
    held.set(
      server,
      [...tools.values()].filter((entry) => entry.instance === server).map((entry) => entry.fullName),
    );
  }
  let listings = options.listings;

  const reserved = options.reserved ?? new Set<string>();
  const place = (server: UpstreamServer, row: ServerRow): boolean => {
    if (reserved.has(row.fullName)) {
      logger.warn(
        { tool: row.fullName, hidden: server.source },
        `tool "${row.fullName}" of ${server.source} is not served: it has the name of a discovery tool; rename it in tools.rename`,
      );
      return false;
    }
    const taken = tools.get(row.fullName);
    if (taken === undefined) {
      tools.set(row.fullName, row.entry);
      held.get(server)?.push(row.fullName);
      return true;
    }
    logger.warn(
      { tool: row.fullName, served: taken.instance.source, hidden: server.source },
      `tool "${row.fullName}" of ${server.source} is not served: ${taken.instance.source} already serves that name, and a name already served keeps it; rename one in tools.rename`,
    );
    return false;
  };

  const update = (server: UpstreamServer, list: readonly UpstreamTool[]) => {
    for (const name of held.get(server) ?? []) tools.delete(name);
    held.set(server, []);
    const problems: { code: HostErrorCode; message: string }[] = [];
    hidden.set(
      server,
      serverRows(server, list, manifest, problems).filter((row) => !place(server, row)),
    );
    for (const problem of problems) logger.warn({ server: server.source }, problem.message);
    // A name this server let go of may be one another server's tool was hidden behind.
    for (const [other, rows] of hidden) {
      if (other !== server)
        hidden.set(
          other,
          rows.filter((row) => tools.has(row.fullName) || !place(other, row)),
        );
    }
    listings = [
      ...skillListings,
      ...servers.flatMap((s) => (held.get(s) ?? []).map((name) => (tools.get(name) as ToolEntry).listing)),
    ];
    for (const listener of listeners) listener();
  };

  const unsubscribes = servers.map((server) =>
    server.handle?.state.subscribe((snapshot) => {
      if (snapshot.change === "tools" && snapshot.tools !== undefined) update(server, snapshot.tools);
    }),
  );

  return {
    listings: () => listings,
    subscribe(listener: () => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      for (const unsubscribe of unsubscribes) unsubscribe?.();
      listeners.clear();
    },
  };
}

// --- internal ---

/** The tools a server entry serves, and the problems of its tools options (names the server does not list). */
function selectServerTools(
  server: UpstreamServer,
  tools: readonly UpstreamTool[],
  problems: { code: HostErrorCode; message: string }[],
): UpstreamTool[] {
  const entry: ServerEntry = server.entry;
  const { include, exclude } = entry.tools ?? {};
  const names = new Set(tools.map((t) => t.name));
  const scoped = Object.keys(entry.scopes ?? {}).filter((name) => name !== "*" && !isReservedKey(name));
  for (const key of Object.keys(entry.scopes ?? {}).filter(isReservedKey)) {
    problems.push({
      code: "MANIFEST_INVALID",
      message: `${server.where}.scopes: "${key}" has nothing to scope: a server entry serves the server's tools only (its resources and prompts are not passed through), so its keys are tool names and "*"`,
    });
  }
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
  return tools.filter((t) => (include === undefined || include.includes(t.name)) && !(exclude ?? []).includes(t.name));
}

/** A server's name and version as it gave them (from its handshake, or as the lock recorded them), kept short. */
function serverInfoOf(info: { name?: unknown; version?: unknown } | undefined): UpstreamServerInfo | undefined {
  if (typeof info?.name !== "string" || typeof info.version !== "string") return undefined;
  const short = (text: string) => (text.length > 60 ? `${text.slice(0, 60)}…` : text);
  return { name: short(info.name), version: short(info.version) };
}

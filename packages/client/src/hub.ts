import { clientError } from "./errors.js";
import type {
  CallToolOptions,
  CallToolOutcome,
  ClientError,
  McpHandle,
  StateSnapshot,
  TaskCallOutcome,
  TaskHandle,
  ToolSpec,
} from "./types.js";

/**
 * Where a server came from, for resolving a name two servers offer at run time: a server the user configured
 * explicitly wins over one bundled with the product; between two of the same origin, the one that became ready
 * first keeps the name.
 */
export type ServerOrigin = "configured" | "bundled";

/** A server of a hub: its handle and where it came from. */
export interface HubServer {
  handle: McpHandle;
  /** @default "configured" */
  origin?: ServerOrigin;
}

/** A tool of the hub: the server's tool under its full name `<id><separator><tool>`. */
export interface HubTool extends ToolSpec {
  /** The server's id in the hub. */
  server: string;
  /** The tool's own name on its server. */
  tool: string;
}

/** A name two ready servers offer at run time, and which one keeps it. Never silent: see {@link McpHubOptions.onWarning}. */
export interface HubWarning {
  code: "NAME_COLLISION";
  message: string;
  /** The full name both offer. */
  name: string;
  kept: { server: string; origin: ServerOrigin; tool: string };
  hidden: { server: string; origin: ServerOrigin; tool: string };
}

/** What a hub reports to its subscribers. */
export type HubEvent =
  | { type: "tools"; tools: readonly HubTool[] }
  | { type: "server"; id: string; snapshot: StateSnapshot }
  | { type: "reconnect"; id: string; attempt: number; delayMs: number }
  | { type: "warning"; warning: HubWarning };

/** How a failed server is started again: capped exponential backoff with jitter. */
export interface ReconnectOptions {
  /** @default 500 */
  initialDelayMs?: number;
  /** @default 30000 */
  maxDelayMs?: number;
  /** The random source for the jitter, in [0, 1). @default Math.random */
  random?: () => number;
}

/** Options for {@link McpHub}. */
export interface McpHubOptions {
  /**
   * Between a server's id and its tool's name. Ids may contain it, so two servers can offer the same full name
   * (`"a"` + `"b_c"` and `"a_b"` + `"c"` with `"_"`): that stops `start()`, or at run time is resolved by origin.
   * @default "."
   */
  separator?: string;
  /** Reconnection of a server that failed or whose connection closed. */
  reconnect?: ReconnectOptions;
  /**
   * Told of every run-time name collision and how it was resolved.
   * @default console.warn of the warning's message
   */
  onWarning?: (warning: HubWarning) => void;
}

/** What `McpHub.start()` answers: the union of the ready servers' tools and why the others are not ready. */
export type HubStartResult =
  | { ok: true; tools: readonly HubTool[]; failed: Readonly<Record<string, ClientError>> }
  | { ok: false; error: ClientError };

/**
 * Many MCP servers as one: a map of id → handle whose ready servers' tools form one namespaced set,
 * `<id><separator><tool>`. Each server starts, stops, fails and reconnects on its own (capped exponential
 * backoff with jitter); one failing server never touches another's calls, credentials or state. Two servers
 * offering the same full name stop `start()`; a collision that appears at run time (a list change, a reconnect,
 * a server added later) is resolved by origin — configured over bundled, then the server ready first — with a
 * warning naming both.
 *
 * @example
 * const hub = new McpHub(new Map([
 *   ["fs", connect({ transport: "stdio", command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "."], inheritEnv: ["PATH", "HOME"] })],
 *   ["notes", connect({ transport: "http", url: "http://127.0.0.1:3333/mcp" })],
 * ]));
 * await hub.start();
 * const outcome = await hub.callTool("fs.list_directory", { path: "." });
 */
export class McpHub {
  readonly #members = new Map<string, Member>();
  readonly #separator: string;
  readonly #reconnect: Required<ReconnectOptions>;
  readonly #onWarning: (warning: HubWarning) => void;
  readonly #listeners = new Set<(event: HubEvent) => void>();
  #table = new Map<string, Entry>();
  #tools: readonly HubTool[] = [];
  #phase: "stopped" | "starting" | "running" = "stopped";
  #readySequence = 0;
  #warned = new Set<string>();

  constructor(
    servers: ReadonlyMap<string, McpHandle | HubServer> | Readonly<Record<string, McpHandle | HubServer>> = {},
    options: McpHubOptions = {},
  ) {
    this.#separator = options.separator ?? ".";
    if (this.#separator === "") throw new TypeError("[skillport-client] [hub] the separator may not be empty");
    this.#reconnect = {
      initialDelayMs: options.reconnect?.initialDelayMs ?? 500,
      maxDelayMs: options.reconnect?.maxDelayMs ?? 30_000,
      random: options.reconnect?.random ?? Math.random,
    };
    this.#onWarning = options.onWarning ?? ((warning) => console.warn(warning.message));
    const entries = servers instanceof Map ? [...servers.entries()] : Object.entries(servers);
    for (const [id, server] of entries) this.add(id, server);
  }

  /** The servers by id. */
  get servers(): ReadonlyMap<string, McpHandle> {
    return new Map([...this.#members].map(([id, member]) => [id, member.handle]));
  }

  /**
   * Adds a server. Throws when the id is taken or empty (a programming error). In a running hub the server
   * starts at once; a name it brings that another server already offers is resolved by origin, with a warning.
   */
  add(id: string, server: McpHandle | HubServer): void {
    if (id === "") throw new TypeError("[skillport-client] [hub] a server id may not be empty");
    if (this.#members.has(id)) throw new TypeError(`[skillport-client] [hub] a server is already mounted at "${id}"`);
    const handle = "handle" in server ? server.handle : server;
    const origin = ("handle" in server ? server.origin : undefined) ?? "configured";
    const member: Member = { id, handle, origin, order: undefined, wanted: false, attempts: 0, timer: undefined };
    member.unsubscribe = handle.state.subscribe((snapshot) => this.#observe(member, snapshot));
    this.#members.set(id, member);
    if (this.#phase === "running") {
      member.wanted = true;
      void handle.start();
    }
  }

  /** Stops a server and forgets it; its tools leave the hub. */
  async remove(id: string): Promise<void> {
    const member = this.#members.get(id);
    if (member === undefined) return;
    this.#members.delete(id);
    member.wanted = false;
    this.#cancelReconnect(member);
    member.unsubscribe?.();
    await member.handle.stop();
    this.#rebuild();
  }

  /**
   * Starts every server, each on its own. A server that fails is reported in `failed` and reconnects with
   * backoff (one whose credentials or host are missing does not: that needs a fix, not time). Two servers
   * offering the same full name answer CONFLICT, naming both, and the hub stops. Calling it again on a running
   * hub starts nothing new and answers the current tools.
   */
  async start(): Promise<HubStartResult> {
    if (this.#phase === "running") return { ok: true, tools: this.#tools, failed: this.#failures() };
    this.#phase = "starting";
    const members = [...this.#members.values()];
    for (const member of members) member.wanted = true;
    await Promise.all(members.map((member) => member.handle.start()));
    if (this.#phase !== "starting") {
      return { ok: false, error: clientError("hub", "UNAVAILABLE", "stopped while starting") };
    }
    const conflicts = this.#conflicts();
    if (conflicts.length > 0) {
      await this.stop();
      return {
        ok: false,
        error: clientError(
          "hub",
          "CONFLICT",
          `two servers offer the same tool name, so the hub did not start: ${conflicts.join("; ")}; rename a server id or choose another separator`,
        ),
      };
    }
    this.#phase = "running";
    this.#rebuild();
    for (const member of members) {
      if (member.handle.state.value === "error") this.#scheduleReconnect(member);
    }
    return { ok: true, tools: this.#tools, failed: this.#failures() };
  }

  /** Stops every server and every pending reconnection. */
  async stop(): Promise<void> {
    this.#phase = "stopped";
    const members = [...this.#members.values()];
    for (const member of members) {
      member.wanted = false;
      this.#cancelReconnect(member);
    }
    await Promise.all(members.map((member) => member.handle.stop()));
    this.#rebuild();
  }

  /** The union of the ready servers' tools, under their full names. */
  listTools(): readonly HubTool[] {
    return this.#tools;
  }

  /**
   * Calls a tool by its full name on the server that offers it. A name of a server not started yet starts that
   * server first (lazily); a name of a server that is failing answers UNAVAILABLE with its reason while it
   * reconnects; an unknown name answers NOT_FOUND. Never throws. A call the server runs as a task is waited for,
   * or with `{ task: "handle" }` answered as a {@link TaskHandle} on that server.
   */
  callTool(
    fullName: string,
    args: Record<string, unknown> | undefined,
    options: CallToolOptions & { task: "handle" },
  ): Promise<TaskCallOutcome>;
  callTool(fullName: string, args?: Record<string, unknown>, options?: CallToolOptions): Promise<CallToolOutcome>;
  async callTool(
    fullName: string,
    args: Record<string, unknown> = {},
    options: CallToolOptions = {},
  ): Promise<TaskCallOutcome> {
    const entry = this.#table.get(fullName) ?? (await this.#startOwner(fullName));
    if (entry === undefined || "error" in entry) {
      return { ok: false, error: entry?.error ?? this.#notFound(fullName) };
    }
    // The server's task (with `task: "handle"`) is the handle's: its requests go to that server.
    return entry.member.handle.callTool(entry.tool.name, args, options as CallToolOptions & { task: "handle" });
  }

  /** Calls `listener` on every hub event (tool list changes, server states, reconnections, warnings). */
  subscribe(listener: (event: HubEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  // --- internal ---

  #observe(member: Member, snapshot: StateSnapshot): void {
    if (snapshot.value === "ready") {
      member.order ??= ++this.#readySequence;
      member.attempts = 0;
    }
    this.#emit({ type: "server", id: member.id, snapshot });
    if (this.#phase === "starting") return;
    this.#rebuild();
    if (snapshot.value === "error" && this.#phase === "running") this.#scheduleReconnect(member);
  }

  /** The table from scratch: every ready server's tools under full names; a name offered twice goes by precedence. */
  #rebuild(): void {
    const offers = new Map<string, Entry[]>();
    for (const member of this.#members.values()) {
      if (member.handle.state.value !== "ready") continue;
      for (const tool of member.handle.state.tools ?? []) {
        const name = `${member.id}${this.#separator}${tool.name}`;
        const list = offers.get(name);
        if (list === undefined) offers.set(name, [{ member, tool }]);
        else list.push({ member, tool });
      }
    }
    const table = new Map<string, Entry>();
    const colliding = new Set<string>();
    for (const [name, list] of offers) {
      list.sort(precedence);
      const [kept, ...hidden] = list as [Entry, ...Entry[]];
      table.set(name, kept);
      for (const loser of hidden) {
        const key = `${name}\u0000${kept.member.id}\u0000${loser.member.id}`;
        colliding.add(key);
        if (!this.#warned.has(key)) this.#warn(name, kept, loser);
      }
    }
    this.#warned = colliding;
    const changed =
      table.size !== this.#table.size ||
      [...table].some(([name, entry]) => {
        const before = this.#table.get(name);
        return before === undefined || before.member !== entry.member || before.tool !== entry.tool;
      });
    this.#table = table;
    if (!changed) return;
    this.#tools = [...table].map(([name, { member, tool }]) => ({ ...tool, name, server: member.id, tool: tool.name }));
    this.#emit({ type: "tools", tools: this.#tools });
  }

  #warn(name: string, kept: Entry, hidden: Entry): void {
    const why =
      kept.member.origin !== hidden.member.origin
        ? `a ${kept.member.origin} server wins over a ${hidden.member.origin} one`
        : "the server that was ready first keeps the name";
    const warning: HubWarning = {
      code: "NAME_COLLISION",
      name,
      kept: { server: kept.member.id, origin: kept.member.origin, tool: kept.tool.name },
      hidden: { server: hidden.member.id, origin: hidden.member.origin, tool: hidden.tool.name },
      message: `[hub] servers "${kept.member.id}" (tool "${kept.tool.name}") and "${hidden.member.id}" (tool "${hidden.tool.name}") both offer "${name}"; "${kept.member.id}" keeps it (${why}) and "${hidden.member.id}"'s tool is hidden; rename a server id or choose another separator`,
    };
    try {
      this.#onWarning(warning);
    } catch {
      // The warning sink's failure does not stop the hub.
    }
    this.#emit({ type: "warning", warning });
  }

  /** Names two servers offer, for the start-up refusal. */
  #conflicts(): string[] {
    const owners = new Map<string, string[]>();
    for (const member of this.#members.values()) {
      if (member.handle.state.value !== "ready") continue;
      for (const tool of member.handle.state.tools ?? []) {
        const name = `${member.id}${this.#separator}${tool.name}`;
        owners.set(name, [...(owners.get(name) ?? []), `"${member.id}" (tool "${tool.name}")`]);
      }
    }
    return [...owners]
      .filter(([, servers]) => servers.length > 1)
      .map(([name, servers]) => `"${name}" is offered by ${servers.join(" and ")}`);
  }

  #scheduleReconnect(member: Member): void {
    if (!member.wanted || member.timer !== undefined) return;
    const error = member.handle.state.error;
    if (error !== undefined && !RETRIED.has(error.code)) return;
    const { initialDelayMs, maxDelayMs, random } = this.#reconnect;
    const capped = Math.min(maxDelayMs, initialDelayMs * 2 ** member.attempts);
    // "Equal jitter": at least half the capped delay, so a crash loop never spins; the other half random, so
    // servers that failed together do not all come back at once.
    const delayMs = Math.round(capped / 2 + (random() * capped) / 2);
    member.attempts++;
    this.#emit({ type: "reconnect", id: member.id, attempt: member.attempts, delayMs });
    member.timer = setTimeout(() => {
      member.timer = undefined;
      if (member.wanted && member.handle.state.value === "error") void member.handle.start();
    }, delayMs);
    (member.timer as { unref?: () => void }).unref?.();
  }

  #cancelReconnect(member: Member): void {
    if (member.timer !== undefined) clearTimeout(member.timer);
    member.timer = undefined;
  }

  /** The server a full name belongs to, when it is not ready: starts it if it was never started, else says why. */
  async #startOwner(fullName: string): Promise<Entry | { error: ClientError } | undefined> {
    const owners = [...this.#members.values()].filter((m) => fullName.startsWith(`${m.id}${this.#separator}`));
    for (const member of owners) {
      const state = member.handle.state.value;
      if (state === "ready") continue;
      if (state === "idle" || state === "starting") {
        member.wanted = true;
        await member.handle.start();
        this.#rebuild();
        const entry = this.#table.get(fullName);
        if (entry !== undefined) return entry;
      }
    }
    const failing = owners.find((m) => m.handle.state.value === "error");
    if (failing === undefined) return undefined;
    const reason = failing.handle.state.error?.message ?? "it failed";
    const when = failing.timer === undefined ? "" : "; it is reconnecting";
    return {
      error: clientError("hub", "UNAVAILABLE", `server "${failing.id}" is not available${when}: ${reason}`),
    };
  }

  #notFound(fullName: string): ClientError {
    return clientError(
      "hub",
      "NOT_FOUND",
      `no ready server offers a tool named "${fullName}"; listTools() names the tools there are`,
    );
  }

  #failures(): Record<string, ClientError> {
    const failed: Record<string, ClientError> = {};
    for (const member of this.#members.values()) {
      const error = member.handle.state.error;
      if (member.handle.state.value === "error" && error !== undefined) failed[member.id] = error;
    }
    return failed;
  }

  #emit(event: HubEvent): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch {
        // A subscriber's failure is its own.
      }
    }
  }
}

// --- internal ---

/** Failures worth retrying with time; missing credentials or a missing host need a fix instead. */
const RETRIED = new Set<string>(["UNAVAILABLE", "TIMEOUT", "UNAUTHORIZED", "PROTOCOL_ERROR", "INTERNAL"]);

const ORIGIN_RANK: Record<ServerOrigin, number> = { configured: 0, bundled: 1 };

interface Member {
  id: string;
  handle: McpHandle;
  origin: ServerOrigin;
  /** When the server first became ready in this hub (1, 2, …); earlier keeps a contested name. */
  order: number | undefined;
  /** Whether the hub wants it running (started, not stopped): only then is it reconnected. */
  wanted: boolean;
  attempts: number;
  timer: ReturnType<typeof setTimeout> | undefined;
  unsubscribe?: () => void;
}

interface Entry {
  member: Member;
  tool: ToolSpec;
}

/** Configured before bundled, then the server ready first. */
function precedence(a: Entry, b: Entry): number {
  return (
    ORIGIN_RANK[a.member.origin] - ORIGIN_RANK[b.member.origin] ||
    (a.member.order ?? Number.MAX_SAFE_INTEGER) - (b.member.order ?? Number.MAX_SAFE_INTEGER)
  );
}

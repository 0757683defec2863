import type { ServerAuth } from "../manifest/manifest.js";
import type { RunCall } from "./tool-entry.js";
import type { UpstreamConnect, UpstreamHandle, UpstreamSpec } from "./upstream-client.js";

/** The most callers' connections a per-caller server keeps open; the least recently used is stopped first. */
const MAX_CALLER_HANDLES = 256;

/**
 * The connection a call to an upstream server goes through: the server's one handle, or, for a server called per
 * caller (`auth.perCaller`), that caller's own, opened with their credential (a header for a remote server, a
 * variable of its own process for a command). Two callers never share a connection; a caller whose credential
 * changed (refreshed, reconnected) gets a new one. A local call (no caller) uses the server's handle, which holds the
 * fallback.
 */
export interface CallerHandles {
  handleFor(call: Pick<RunCall, "caller" | "credentials">): UpstreamHandle | undefined;
  /** Stops every caller's connection. */
  stop(): Promise<void>;
}

/**
 * @example
 * const handles = callerHandles(shared, spec, entry.auth, connect);
 * const handle = handles.handleFor(call); // alice's connection, with alice's token
 */
export function callerHandles(
  shared: UpstreamHandle | undefined,
  spec: UpstreamSpec,
  auth: ServerAuth | undefined,
  connect: UpstreamConnect,
  wrap: (handle: UpstreamHandle) => UpstreamHandle = (handle) => handle,
): CallerHandles {
  if (auth === undefined) return { handleFor: () => shared, stop: async () => {} };
  const open = new Map<string, CallerHandle>();
  return {
    handleFor(call) {
      const value = call.credentials?.token;
      if (call.caller === undefined || value === undefined) return shared;
      const id = call.caller.id;
      const found = open.get(id);
      if (found !== undefined) {
        open.delete(id);
        if (found.value === value) {
          open.set(id, found); // most recently used last
          return found.handle;
        }
        found.retire();
      }
      const opened = callerHandle(value, wrap(connect(withCredential(spec, auth, value))));
      open.set(id, opened);
      if (open.size > MAX_CALLER_HANDLES) {
        const [oldest] = open.keys();
        if (oldest !== undefined) {
          open.get(oldest)?.retire();
          open.delete(oldest);
        }
      }
      return opened.handle;
    },
    async stop() {
      const handles = [...open.values()].map((o) => o.handle.stop());
      open.clear();
      await Promise.all(handles);
    },
  };
}

/** The server's spec with a credential added: as a header (remote) or a variable (command), per `auth`. */
export function withCredential(spec: UpstreamSpec, auth: ServerAuth, value: string): UpstreamSpec {
  if (spec.transport === "http") {
    const header = (auth.perCaller === "token" ? auth.header : undefined) ?? "Authorization";
    const scheme = (auth.perCaller === "token" ? auth.scheme : undefined) ?? "Bearer";
    return {
      ...spec,
      credentials: {
        ...spec.credentials,
        [`auth ${header}`]: { from: { value: scheme === "" ? value : `${scheme} ${value}` }, to: { header } },
      },
    };
  }
  const variable = auth.perCaller === "token" ? auth.env : undefined;
  if (variable === undefined) return spec;
  return {
    ...spec,
    credentials: { ...spec.credentials, [`env ${variable}`]: { from: { value }, to: { env: variable } } },
  };
}

// --- internal ---

/** A caller's connection, stopped once replaced (their credential changed) and its calls under way have finished. */
interface CallerHandle {
  value: string;
  handle: UpstreamHandle;
  retire(): void;
}

function callerHandle(value: string, inner: UpstreamHandle): CallerHandle {
  let running = 0;
  let retired = false;
  const handle: UpstreamHandle = {
    start: () => inner.start(),
    stop: () => inner.stop(),
    get state() {
      return inner.state;
    },
    async callTool(name, args, options) {
      running++;
      try {
        return await inner.callTool(name, args, options);
      } finally {
        running--;
        if (retired && running === 0) void inner.stop();
      }
    },
  };
  return {
    value,
    handle,
    retire() {
      retired = true;
      if (running === 0) void inner.stop();
    },
  };
}

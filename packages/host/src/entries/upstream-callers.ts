import type { ServerAuth } from "../manifest/manifest.js";
import type { RunCall } from "./tool-entry.js";
import type { UpstreamConnect, UpstreamHandle, UpstreamSpec } from "./upstream-client.js";

/** The most callers' connections a per-caller server keeps open; the least recently used is stopped first. */
export const MAX_CALLER_HANDLES = 256;

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
  const open = new Map<string, { value: string; handle: UpstreamHandle }>();
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
        void found.handle.stop();
      }
      const handle = wrap(connect(withCredential(spec, auth, value)));
      open.set(id, { value, handle });
      if (open.size > MAX_CALLER_HANDLES) {
        const [oldest] = open.keys();
        if (oldest !== undefined) {
          void open.get(oldest)?.handle.stop();
          open.delete(oldest);
        }
      }
      return handle;
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

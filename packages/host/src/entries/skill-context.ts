import type { SkillContext } from "@skillport/core";
import type { RunCall } from "./tool-entry.js";

/** What the instance contributes to a capability's context, wherever the capability runs. */
export interface InstanceParts {
  config: unknown;
  /** The credentials the skill reads itself (those it declares with `fetch` are held back). */
  credentials: Readonly<Record<string, string | undefined>>;
  hasCredential(name: string): boolean;
  fetch: SkillContext["fetch"];
}

/**
 * A capability's `ctx`, built the same way in the host's process and inside a worker or child process: the call's
 * parts (signal, traceId, caller, progress, log, findSecret) and the instance's (config, credentials, fetch).
 */
export function createSkillContext(call: RunCall, instance: InstanceParts): SkillContext {
  return {
    token: instance.credentials.token,
    credentials: instance.credentials,
    hasCredential: (name) => instance.hasCredential(name),
    ...(call.caller === undefined ? {} : { auth: { id: call.caller.id, scopes: call.caller.scopes } }),
    signal: call.signal,
    config: instance.config,
    traceId: call.traceId,
    log: call.log,
    progress: call.progress,
    fetch: instance.fetch,
    findSecret: call.findSecret,
  };
}

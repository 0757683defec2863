import { canonicalJson } from "../json/canonical-json.js";
import type { Logger } from "../logging/logger.js";
import type { UpstreamTool } from "./upstream-client.js";

/**
 * What an upstream server's tools were reviewed as, kept on its `UpstreamServer` for the life of the process (through
 * list changes and restarts), so a server cannot lower what its operator saw.
 */
export interface UpstreamPin {
  /**
   * The tool as it may be served, given how the server lists it now. With a lock: the locked tool, refused when the
   * live one differs from it (schema or annotations); a tool the lock does not list is not served. Without one: the
   * live tool (a changed schema is taken), at no lower a risk than the highest seen for its name in this process: a
   * lowered risk is ignored, its readOnlyHint and destructiveHint stay as they were.
   * Each refusal, each tool left out and each lowered risk is logged once as a warning naming server and tool.
   */
  review(live: UpstreamTool): PinnedTool;
}

/** What {@link pinUpstream} pins to, and where it reports. */
export interface PinUpstreamOptions {
  /** The server's id, for the messages calls answer with. */
  id: string;
  /** The server's place in the manifest, for log lines: `servers[0] ("up")`. */
  source: string;
  /** The tools the lock lists for this server, when the host started from a lock that lists it as written. */
  locked: readonly UpstreamTool[] | undefined;
  /** The lock's file name, and the command that rewrites it (see `lockCommand`). */
  lock: { name: string; command: string };
  logger: Logger;
}

/**
 * A pin on an upstream server's tools: to its lock, or, without one, to the first surface seen.
 *
 * @example
 * const pin = pinUpstream({ id: "up", source: 'servers[0] ("up")', locked: undefined, lock, logger });
 * pin.review(liveTool).tool; // never a lower risk than the first list showed
 */
export function pinUpstream(options: PinUpstreamOptions): UpstreamPin {
  const { id, source, locked, lock, logger } = options;
  const pinned = new Map((locked ?? []).map((tool) => [tool.name, tool]));
  const warned = new Map<string, string>();
  const warnOnce = (live: UpstreamTool, message: string) => {
    const seen = fingerprint(live);
    if (warned.get(live.name) === seen) return;
    warned.set(live.name, seen);
    logger.warn({ server: source, tool: live.name }, `${source}: ${message}`);
  };
  return {
    review(live) {
      const before = pinned.get(live.name);
      if (locked !== undefined) {
        if (before === undefined) {
          const refusal = `${id}'s tool "${live.name}" is not in ${lock.name}, so it is not served; review it, then run ${lock.command}`;
          warnOnce(live, refusal);
          return { refusal };
        }
        if (fingerprint(live) === fingerprint(before)) return { tool: before };
        const refusal = `${id}'s tool "${live.name}" differs from ${lock.name} (its schema or annotations changed); review it, then run ${lock.command}`;
        warnOnce(live, `${refusal}; until then its calls answer UNAVAILABLE`);
        return { tool: before, refusal };
      }
      let tool = live;
      if (before !== undefined && RISKS.indexOf(upstreamRisk(live)) < RISKS.indexOf(upstreamRisk(before))) {
        tool = withRiskOf(live, before);
        warnOnce(
          live,
          `tool "${live.name}" now lists a lower risk (${upstreamRisk(live)}) than it did (${upstreamRisk(before)}); the host keeps ${upstreamRisk(before)} until it restarts`,
        );
      }
      pinned.set(live.name, tool);
      return { tool };
    },
  };
}

/** What decides how a call to an upstream tool is checked: its name, schemas and annotations. */
export function fingerprint(tool: UpstreamTool): string {
  return canonicalJson({
    name: tool.name,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema ?? null,
    annotations: tool.annotations ?? null,
  });
}

/**
 * The risk an upstream tool's annotations declare: read-only → read_only; else destructive → dangerous (allow and
 * confirmation); else write.
 */
export function upstreamRisk(tool: UpstreamTool): "read_only" | "write" | "dangerous" {
  const hints = tool.annotations ?? {};
  if (hints.readOnlyHint === true) return "read_only";
  return hints.destructiveHint === true ? "dangerous" : "write";
}

// --- internal ---

/**
 * How an upstream tool listed now may be served: as `tool`; listed as `tool` but its calls refused with `refusal`
 * (it differs from the lock); or, without `tool`, not served at all (the lock does not list it).
 */
type PinnedTool = { tool: UpstreamTool; refusal?: string } | { tool?: undefined; refusal: string };

const RISKS = ["read_only", "write", "dangerous"];

/** `live` with the risk hints (readOnlyHint, destructiveHint) of `pinned`, exactly as it wrote them. */
function withRiskOf(live: UpstreamTool, pinned: UpstreamTool): UpstreamTool {
  const { readOnlyHint: _readOnly, destructiveHint: _destructive, ...rest } = live.annotations ?? {};
  const { readOnlyHint, destructiveHint } = pinned.annotations ?? {};
  return {
    ...live,
    annotations: {
      ...rest,
      ...(readOnlyHint === undefined ? {} : { readOnlyHint }),
      ...(destructiveHint === undefined ? {} : { destructiveHint }),
    },
  };
}

import { randomUUID } from "node:crypto";
import type { Envelope } from "@skillport/core";
import type { Caller } from "../entries/check-scopes.js";
import { missingScopes } from "../entries/check-scopes.js";
import type { Host } from "../host.js";
import { DISCOVERY_DEFAULTS } from "../manifest/defaults.js";
import { MAX_QUERY, MAX_TOOL_NAME } from "../registry/discovery-listings.js";
import { createToolSearch } from "../registry/tool-search.js";

/** What a tools/call of a discovery tool stands for: the call of the named tool, or the discovery tool's own answer. */
type Routed =
  | { readonly call: { readonly name: string; readonly args: Record<string, unknown> } }
  | { readonly envelope: Promise<Envelope>; readonly tool: string };

/**
 * The search and call tools of discovery "search", as the tools core takes them: `route` answers a search (the tools
 * the caller may call, best first), and turns a call of the call tool into the call of the tool it names, which the
 * core then runs as any direct call, through the whole pipeline under that tool's own name. Any other name is not
 * theirs (undefined).
 */
export interface DiscoveryTools {
  route(name: string, args: Record<string, unknown>, caller: Caller | undefined): Routed | undefined;
}

/**
 * The discovery tools of a host whose manifest says discovery "search"; undefined for "all", whose tools core then
 * has nothing more to do per call. Nothing is indexed before the first search.
 */
export function createDiscoveryTools(host: Host): DiscoveryTools | undefined {
  const { discovery } = host.manifest;
  if (discovery.mode !== "search") return undefined;
  const { searchTool, callTool } = discovery;
  const tools = createToolSearch(host.registry);
  const { redactor } = host;
  const finish = (envelope: Envelope): Envelope => (redactor.active ? redactor.value(envelope) : envelope);

  /** The answer of a search: its query and limit checked, then the tools found. */
  async function search(args: Record<string, unknown>, caller: Caller | undefined): Promise<Envelope> {
    const started = performance.now();
    const traceId = randomUUID();
    const invalid = invalidField(args, SEARCH_FIELDS) ?? invalidSearch(args);
    if (invalid !== undefined) return finish(failure(searchTool, traceId, started, invalid));
    const query = (args.query as string).trim();
    const limit = (args.limit as number | undefined) ?? discovery.results;
    const found = await tools.search(query, limit, (entry) => missingScopes(entry, caller) === undefined);
    const definitions = found.map(({ listing }) => ({
      name: listing.name,
      title: listing.title,
      description: listing.description,
      inputSchema: listing.inputSchema,
    }));
    const message =
      definitions.length === 0
        ? `no tool matches “${query}”; describe the task in other words`
        : `${definitions.length} ${definitions.length === 1 ? "tool matches" : "tools match"} “${query}”, best first; call one with ${callTool}`;
    return finish({
      ok: true,
      message,
      data: { tools: definitions },
      evidencePaths: [],
      warnings: [],
      meta: metaOf(searchTool, traceId, started),
    });
  }

  return {
    route(name, args, caller) {
      if (name === searchTool) return { envelope: search(args, caller), tool: searchTool };
      if (name !== callTool) return undefined;
      const invalid = invalidField(args, CALL_FIELDS) ?? invalidCall(args, searchTool, callTool);
      if (invalid !== undefined) {
        const failed = failure(callTool, randomUUID(), performance.now(), invalid);
        return { envelope: Promise.resolve(finish(failed)), tool: callTool };
      }
      return { call: { name: args.name as string, args: (args.arguments as Record<string, unknown>) ?? {} } };
    },
  };
}

// --- internal ---

/** A bad argument of a discovery tool: where it is (a JSON Pointer) and what is wrong. */
interface Invalid {
  field: string;
  message: string;
}

const SEARCH_FIELDS = new Set(["query", "limit"]);
const CALL_FIELDS = new Set(["name", "arguments"]);

/** An argument the tool does not take. */
function invalidField(args: Record<string, unknown>, fields: ReadonlySet<string>): Invalid | undefined {
  for (const key of Object.keys(args)) {
    if (!fields.has(key)) {
      return { field: `/${pointerToken(key)}`, message: `unknown argument; it takes ${[...fields].join(" and ")}` };
    }
  }
  return undefined;
}

function invalidSearch(args: Record<string, unknown>): Invalid | undefined {
  const { query, limit } = args;
  if (typeof query !== "string" || query.trim() === "") {
    return { field: "/query", message: "query must be the task in words, a string that is not empty" };
  }
  if (query.length > MAX_QUERY) return { field: "/query", message: `query must be at most ${MAX_QUERY} characters` };
  const most = DISCOVERY_DEFAULTS.maxResults;
  if (limit !== undefined && !(Number.isInteger(limit) && (limit as number) >= 1 && (limit as number) <= most)) {
    return { field: "/limit", message: `limit must be an integer from 1 to ${most}` };
  }
  return undefined;
}

function invalidCall(args: Record<string, unknown>, searchTool: string, callTool: string): Invalid | undefined {
  const { name, arguments: given } = args;
  if (typeof name !== "string" || name === "") {
    return { field: "/name", message: `name must be the name of a tool, as ${searchTool} gave it` };
  }
  if (name.length > MAX_TOOL_NAME) {
    return { field: "/name", message: `name must be at most ${MAX_TOOL_NAME} characters, as every tool name is` };
  }
  if (name === searchTool || name === callTool) {
    return { field: "/name", message: `${name} is called directly, not through ${callTool}` };
  }
  if (given !== undefined && (given === null || typeof given !== "object" || Array.isArray(given))) {
    return { field: "/arguments", message: "arguments must be an object of the tool's arguments" };
  }
  return undefined;
}

/** A key as a JSON Pointer token (RFC 6901). */
function pointerToken(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}

function metaOf(tool: string, traceId: string, started: number) {
  return { traceId, durationMs: Math.round((performance.now() - started) * 1000) / 1000, tool, toolVersion: "" };
}

function failure(tool: string, traceId: string, started: number, invalid: Invalid): Envelope {
  return {
    ok: false,
    message: `${invalid.field.slice(1)}: ${invalid.message}`,
    error: { code: "ARGUMENT_INVALID", field: invalid.field, retryable: true, traceId },
    warnings: [],
    meta: metaOf(tool, traceId, started),
  };
}

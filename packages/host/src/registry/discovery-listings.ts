import { envelopeSchema } from "@skillport/core";
import type { ToolListing } from "../entries/tool-entry.js";
import { ALWAYS_LOAD } from "../entries/tool-entry.js";
import { DISCOVERY_DEFAULTS } from "../manifest/defaults.js";
import type { Discovery } from "../manifest/manifest.js";
import type { Registry } from "./registry.js";

/** The longest query search_tools takes. */
export const MAX_QUERY = 1000;

/** The longest tool name MCP allows, and so the longest name call_tool takes. */
export const MAX_TOOL_NAME = 128;

/**
 * The tools/list a registry answers under `discovery`: every tool with "all"; with "search", the tools the manifest
 * marks `alwaysLoad` (in manifest order) and the search and call tools after them.
 *
 * @example
 * listedTools(host.registry, host.manifest.discovery).map((t) => t.name) // ["search_tools", "call_tool"]
 */
export function listedTools(registry: Registry, discovery: Discovery): readonly ToolListing[] {
  if (discovery.mode === "all") return registry.listings;
  return [
    ...registry.listings.filter((l) => l._meta?.[ALWAYS_LOAD] === true),
    ...discoveryListings(registry, discovery),
  ];
}

/**
 * The listings of the search tool and the call tool: what they do, for the model, with the composition's sources
 * named so it knows what there is to search for. Both carry `_meta["anthropic/alwaysLoad"]`: a client with a tool
 * search of its own must not hide the two tools that find the others.
 */
export function discoveryListings(registry: Registry, discovery: Discovery): [ToolListing, ToolListing] {
  const { searchTool, callTool, results } = discovery;
  const sources = [...registry.instances, ...registry.servers].map((source) => source.id);
  const count = registry.tools.size;
  const search: ToolListing = {
    name: searchTool,
    title: "Search tools",
    description: `Finds the tools for a task among the ${count} tools of this server${sources.length === 0 ? "" : ` (from ${sources.join(", ")})`}, which are not listed up front. Describe the task in a few words, e.g. "delete a file" or "open a pull request"; the answer lists the best matching tools, best first, each with its name, title, description and input schema. Then call one with ${callTool}.`,
    inputSchema: {
      type: "object",
      properties: {
        query: {
          type: "string",
          minLength: 1,
          maxLength: MAX_QUERY,
          description: "What the tool should do, in words.",
        },
        limit: {
          type: "integer",
          minimum: 1,
          maximum: DISCOVERY_DEFAULTS.maxResults,
          default: results,
          description: "How many tools to answer at most.",
        },
      },
      required: ["query"],
      additionalProperties: false,
    },
    outputSchema: envelopeSchema(FOUND_SCHEMA) as ToolListing["outputSchema"],
    annotations: { title: "Search tools", readOnlyHint: true, openWorldHint: false },
    _meta: { [ALWAYS_LOAD]: true },
  };
  const call: ToolListing = {
    name: callTool,
    title: "Call a tool",
    description: `Calls a tool that ${searchTool} found, by its name, with its arguments as its input schema describes them. The tool runs as if called directly: the same checks, confirmation and answer.`,
    inputSchema: {
      type: "object",
      properties: {
        name: {
          type: "string",
          minLength: 1,
          maxLength: MAX_TOOL_NAME,
          description: `The tool's name, as ${searchTool} gave it.`,
        },
        arguments: { type: "object", description: "The tool's arguments." },
      },
      required: ["name"],
      additionalProperties: false,
    },
    outputSchema: envelopeSchema(undefined) as ToolListing["outputSchema"],
    annotations: { title: "Call a tool", readOnlyHint: false, destructiveHint: true, openWorldHint: true },
    _meta: { [ALWAYS_LOAD]: true },
  };
  return [search, call];
}

// --- internal ---

/** The `data` of the search tool's answer. */
const FOUND_SCHEMA = {
  type: "object",
  properties: {
    tools: {
      type: "array",
      items: {
        type: "object",
        properties: {
          name: { type: "string" },
          title: { type: "string" },
          description: { type: "string" },
          inputSchema: { type: "object" },
        },
        required: ["name", "description", "inputSchema"],
      },
    },
  },
  required: ["tools"],
};

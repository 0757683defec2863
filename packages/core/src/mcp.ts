// The MCP shapes every Skillport package reads or writes, declared once here: the lowest package all of them may
// depend on (the host, the client, the test kit; a skill through its peer). Types only, no SDK. They are what travels
// over the wire; what a skill hands the host (bytes as a Uint8Array, URIs in its own scheme) is `Content`.
import type { ToolAnnotations } from "./risk.js";
import type { JsonSchema } from "./schema.js";

/**
 * A tool as an MCP server lists it (tools/list): its name, descriptions and JSON Schemas as published, and its hints.
 *
 * @example
 * const tool: McpTool = { name: "search_notes", inputSchema: { type: "object", properties: {} } };
 */
export interface McpTool {
  name: string;
  title?: string;
  description?: string;
  /** The JSON Schema of the arguments (an object schema), exactly as the server published it. */
  inputSchema: JsonSchema;
  /** The JSON Schema of `structuredContent`, when the server publishes one. */
  outputSchema?: JsonSchema;
  /** MCP hints: readOnlyHint, destructiveHint, idempotentHint, openWorldHint, title. */
  annotations?: ToolAnnotations;
  /**
   * Whether a call may run as a task (the Tasks extension): `forbidden` (as when absent), `optional`, `required`.
   * Only 2025-11-25 era listings carry it; in the 2026-07-28 era a server decides per call.
   */
  execution?: { taskSupport?: "forbidden" | "optional" | "required" };
  _meta?: Record<string, unknown>;
}

/**
 * One part of a resource as MCP sends it: text, or bytes as base64 (`blob`). Either may be read without narrowing
 * (`contents[0]?.text` is the text, or undefined for bytes).
 */
export type McpResourceContents = { uri: string; mimeType?: string; _meta?: Record<string, unknown> } & (
  | { text: string; blob?: undefined }
  | { blob: string; text?: undefined }
);

/** A content block as MCP sends it in a tool's answer or a prompt's message: bytes as base64. */
export type McpContentBlock =
  | { type: "text"; text: string }
  | { type: "image"; data: string; mimeType: string }
  | { type: "audio"; data: string; mimeType: string }
  | {
      type: "resource_link";
      uri: string;
      name: string;
      title?: string;
      description?: string;
      mimeType?: string;
      size?: number;
    }
  | { type: "resource"; resource: McpResourceContents };

/** What a tool answered (tools/call): content blocks, and structured data when the tool gives it. */
export interface McpToolResult {
  content: McpContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

// What a server answered, as the contract's plain data: tool specs, progress, a failed tool's summary, the server's
// identity, and any result of a request the SDK has no schema for (the Tasks extension's).
import type { Client, StandardSchemaV1 } from "@modelcontextprotocol/client";
import { TASKS_EXTENSION_ID } from "./tasks.js";
import type { Progress, ServerInfo, ToolResult, ToolSpec } from "./types.js";

/** Any result, as the server sent it (the Tasks extension's requests: the SDK has no schema of theirs). */
export const ANY_RESULT: StandardSchemaV1<unknown, Record<string, unknown>> = {
  "~standard": {
    version: 1,
    vendor: "skillport",
    validate: (value) =>
      typeof value === "object" && value !== null
        ? { value: value as Record<string, unknown> }
        : { issues: [{ message: "not an object" }] },
  },
};
/**
 * The SDK's tools as plain specs: the fields of the contract, exactly as the server published them. A tool's
 * `execution` is kept only from a server that declared the Tasks extension (SEP-2663): a server of the 2025-11-25
 * experimental tasks (SEP-1686, which this client does not speak) lists the same field for another protocol.
 */
export function toSpecs(tools: readonly unknown[], client: Client): ToolSpec[] {
  const extensions = (client.getServerCapabilities() as { extensions?: Record<string, unknown> } | undefined)
    ?.extensions;
  const tasks = extensions !== undefined && Object.hasOwn(extensions, TASKS_EXTENSION_ID);
  return tools.map((raw) => {
    const tool = raw as ToolSpec;
    const spec: ToolSpec = { name: tool.name, inputSchema: tool.inputSchema };
    if (tool.title !== undefined) spec.title = tool.title;
    if (tool.description !== undefined) spec.description = tool.description;
    if (tool.outputSchema !== undefined) spec.outputSchema = tool.outputSchema;
    if (tool.annotations !== undefined) spec.annotations = tool.annotations;
    if (tasks && tool.execution !== undefined) spec.execution = tool.execution;
    if (tool._meta !== undefined) spec._meta = tool._meta;
    return spec;
  });
}

/** The fields of a progress notification the contract names. */
export function progressOf(notified: { progress: number; total?: number; message?: string }): Progress {
  const progress: Progress = { progress: notified.progress };
  if (notified.total !== undefined) progress.total = notified.total;
  if (notified.message !== undefined) progress.message = notified.message;
  return progress;
}

/** A short line saying what a failed tool said: a Skillport envelope's message, else its first text. */
export function summary(result: ToolResult): string {
  const structured = result.structuredContent as { message?: unknown } | undefined;
  if (typeof structured?.message === "string") return clip(structured.message);
  for (const block of result.content) {
    const text = (block as { type?: unknown; text?: unknown }).text;
    if ((block as { type?: unknown }).type === "text" && typeof text === "string") return clip(text);
  }
  return "the tool reported an error";
}

function clip(text: string): string {
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}

/** A server's `serverInfo` as plain data: its name and version (and title), when it gave them as strings. */
export function serverInfoOf(
  info: { name?: unknown; version?: unknown; title?: unknown } | undefined,
): ServerInfo | undefined {
  if (typeof info?.name !== "string" || typeof info.version !== "string") return undefined;
  return { name: info.name, version: info.version, ...(typeof info.title === "string" ? { title: info.title } : {}) };
}

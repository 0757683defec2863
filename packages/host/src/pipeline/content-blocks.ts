import type { McpContentBlock, McpResourceContents } from "@skillport/core";
import type { UriMount } from "../entries/uri-template.js";

/** One part of a resource as MCP sends it: text, or bytes as base64. */
export type ResourceBlock = McpResourceContents;

/** A content block as MCP sends it (tool results, prompt messages). */
export type ContentBlock = McpContentBlock;

/** A prompt rendered for prompts/get. */
export type RenderedPrompt = {
  description?: string;
  messages: { role: "user" | "assistant"; content: ContentBlock }[];
};

/** Something a capability returned that is not what it promised; the message says what and where. */
export class ContentError extends Error {
  override readonly name = "ContentError";
}

/**
 * A capability's content items as MCP content blocks: bytes as base64, and URIs in the skill's own schemes written
 * as the instance serves them. Throws a {@link ContentError} naming the first item that is not content.
 */
export function contentBlocks(items: unknown, mount: UriMount, where = "content"): ContentBlock[] {
  if (!Array.isArray(items)) throw new ContentError(`${where} must be a list of content items`);
  return items.map((item, index) => contentBlock(item, mount, `${where}[${index}]`));
}

/**
 * What reading a resource returned, as resources/read's `contents`: text and bytes take the resource's URI and
 * MIME type; parts may name their own (in the skill's scheme, rewritten like links). An empty list is refused.
 */
export function resourceBlocks(
  value: unknown,
  uri: string,
  mimeType: string | undefined,
  mount: UriMount,
): ResourceBlock[] {
  const parts = Array.isArray(value) ? value : [value];
  if (parts.length === 0) throw new ContentError("the read returned no contents");
  return parts.map((part, index) => {
    const where = Array.isArray(value) ? `contents[${index}]` : "the read";
    if (typeof part === "string") return withMime({ uri, text: part }, mimeType);
    if (part instanceof Uint8Array) return withMime({ uri, blob: base64(part) }, mimeType);
    return resourceBlock(part, mount, where, uri, mimeType);
  });
}

/** What rendering a prompt returned, as prompts/get answers it. */
export function renderedPrompt(value: unknown, mount: UriMount): RenderedPrompt {
  if (typeof value === "string") return { messages: [{ role: "user", content: { type: "text", text: value } }] };
  const { description, messages } = Array.isArray(value)
    ? { description: undefined, messages: value }
    : ((value ?? {}) as { description?: unknown; messages?: unknown });
  if (!Array.isArray(messages)) throw new ContentError("a prompt renders to text, a list of messages, or { messages }");
  if (description !== undefined && typeof description !== "string") {
    throw new ContentError("the rendered prompt's description must be text");
  }
  return {
    ...(description === undefined ? {} : { description }),
    messages: messages.map((message, index) => {
      const { role, content } = (message ?? {}) as { role?: unknown; content?: unknown };
      if (role !== "user" && role !== "assistant") {
        throw new ContentError(`messages[${index}].role must be "user" or "assistant"`);
      }
      const block =
        typeof content === "string"
          ? ({ type: "text", text: content } as const)
          : contentBlock(content, mount, `messages[${index}].content`);
      return { role, content: block };
    }),
  };
}

// --- internal ---

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function contentBlock(item: unknown, mount: UriMount, where: string): ContentBlock {
  if (typeof item !== "object" || item === null) throw new ContentError(`${where} is not a content item`);
  const value = item as Record<string, unknown>;
  switch (value.type) {
    case "text":
      return { type: "text", text: text(value.text, `${where}.text`) };
    case "image":
    case "audio":
      return {
        type: value.type,
        data: bytes(value.data, `${where}.data`),
        mimeType: text(value.mimeType, `${where}.mimeType`),
      };
    case "resource_link":
      return {
        type: "resource_link",
        uri: mount.served(text(value.uri, `${where}.uri`)),
        name: text(value.name, `${where}.name`),
        ...optionalText(value, ["title", "description", "mimeType"], where),
        ...(typeof value.size === "number" ? { size: value.size } : {}),
      };
    case "resource":
      return {
        type: "resource",
        resource: resourceBlock(value.resource, mount, `${where}.resource`, undefined, undefined),
      };
    default:
      throw new ContentError(
        `${where}.type must be one of text, image, audio, resource_link, resource (got ${JSON.stringify(value.type)})`,
      );
  }
}

function resourceBlock(
  part: unknown,
  mount: UriMount,
  where: string,
  uri: string | undefined,
  mimeType: string | undefined,
): ResourceBlock {
  if (typeof part !== "object" || part === null) throw new ContentError(`${where} is not resource contents`);
  const value = part as Record<string, unknown>;
  const own = value.uri === undefined ? uri : mount.served(text(value.uri, `${where}.uri`));
  if (own === undefined) throw new ContentError(`${where}.uri is missing`);
  const mime = value.mimeType === undefined ? mimeType : text(value.mimeType, `${where}.mimeType`);
  if (typeof value.text === "string") return withMime({ uri: own, text: value.text }, mime);
  if (value.blob !== undefined) return withMime({ uri: own, blob: bytes(value.blob, `${where}.blob`) }, mime);
  throw new ContentError(`${where} has neither text nor blob`);
}

function withMime<T extends ResourceBlock>(block: T, mimeType: string | undefined): T {
  return mimeType === undefined ? block : { ...block, mimeType };
}

function text(value: unknown, where: string): string {
  if (typeof value !== "string") throw new ContentError(`${where} must be text`);
  return value;
}

function optionalText(value: Record<string, unknown>, keys: readonly string[], where: string) {
  return Object.fromEntries(
    keys.filter((k) => value[k] !== undefined).map((k) => [k, text(value[k], `${where}.${k}`)]),
  );
}

/** Bytes as base64: a `Uint8Array`, or text that already is base64. */
function bytes(value: unknown, where: string): string {
  if (value instanceof Uint8Array) return base64(value);
  if (typeof value === "string" && value.length % 4 === 0 && BASE64.test(value)) return value;
  throw new ContentError(`${where} must be a Uint8Array or base64 text`);
}

function base64(value: Uint8Array): string {
  return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("base64");
}

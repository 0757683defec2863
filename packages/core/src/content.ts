/**
 * What a tool (beside its data), a resource or a prompt may hand to a client: text, an image, audio, a link to a
 * resource, or a resource's contents embedded. The host sends them as MCP content blocks; bytes may be given as a
 * `Uint8Array` (the host encodes them as base64) or as a base64 string.
 */
export type Content = TextContent | ImageContent | AudioContent | ResourceLinkContent | EmbeddedResourceContent;

export interface TextContent {
  type: "text";
  text: string;
}

export interface ImageContent {
  type: "image";
  /** The image's bytes, or their base64. */
  data: Uint8Array | string;
  /** @example "image/png" */
  mimeType: string;
}

export interface AudioContent {
  type: "audio";
  /** The audio's bytes, or their base64. */
  data: Uint8Array | string;
  /** @example "audio/wav" */
  mimeType: string;
}

/**
 * A link to a resource the client may read with resources/read. A URI in a scheme the skill's own resources use is
 * written as the skill knows it (`github://repos/o/r/readme`); the host rewrites it to the URI it serves.
 */
export interface ResourceLinkContent {
  type: "resource_link";
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
}

/** A resource's contents, embedded. Its URI is rewritten like a {@link ResourceLinkContent}'s. */
export interface EmbeddedResourceContent {
  type: "resource";
  resource: ResourceContents & { uri: string };
}

/**
 * One part of a resource: text, or bytes (`blob`, a `Uint8Array` or base64). `uri` defaults to the URI that was
 * read; `mimeType` to the one the resource declares.
 */
export type ResourceContents =
  | { uri?: string; mimeType?: string; text: string }
  | { uri?: string; mimeType?: string; blob: Uint8Array | string };

/** A message of a rendered prompt. */
export interface PromptMessage {
  role: "user" | "assistant";
  content: Content;
}

/** The content types, as MCP names them. */
export const CONTENT_TYPES = ["text", "image", "audio", "resource_link", "resource"] as const;

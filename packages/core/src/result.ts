import type { Content } from "./content.js";
import type { JsonSchema } from "./schema.js";
import type { ErrorCode } from "./skill-error.js";

const RESULT_BRAND = Symbol.for("skillport.result");

/** Extras a capability may attach to its data. */
export interface ResultExtras {
  /** One line for a person or a model; the host writes a default when absent. */
  message?: string;
  /** The files, notes or URLs the data was drawn from. */
  evidencePaths?: readonly string[];
  /** Things the caller should know that did not stop the call. */
  warnings?: readonly string[];
  /** True when only part of the work succeeded; say what failed in `warnings`. */
  partial?: boolean;
  /**
   * Content for the client beside the envelope: images, audio, links to resources, embedded resources, more text.
   * The host sends them after the envelope's own text, in this order; `structuredContent` stays the envelope.
   * @example [{ type: "image", data: png, mimeType: "image/png" }]
   */
  content?: readonly Content[];
}

/** Data plus extras, as a capability returns it. Build one with {@link result} or {@link withEvidence}. */
export interface ToolResult<T = unknown> extends ResultExtras {
  readonly [RESULT_BRAND]: true;
  data: T;
}

/**
 * Wraps a capability's data with extras for the envelope.
 * @example
 * return result({ hits }, { message: `${hits.length} notes match`, evidencePaths: hits.map((h) => h.path) });
 */
export function result<T>(data: T, extras: ResultExtras = {}): ToolResult<T> {
  return { [RESULT_BRAND]: true, data, ...extras };
}

/** Data with the paths it was drawn from. */
export function withEvidence<T>(data: T, evidencePaths: readonly string[], extras: ResultExtras = {}): ToolResult<T> {
  return result(data, { ...extras, evidencePaths });
}

/** Data that succeeded only in part: `warnings` say what did not. */
export function partialResult<T>(data: T, warnings: readonly string[], extras: ResultExtras = {}): ToolResult<T> {
  return result(data, { ...extras, warnings, partial: true });
}

/** True for a value built by {@link result}, also by another copy of this package. */
export function isToolResult(value: unknown): value is ToolResult {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[RESULT_BRAND] === true;
}

/** Facts about a call, on every envelope. */
export interface EnvelopeMeta {
  traceId: string;
  durationMs: number;
  tool: string;
  toolVersion: string;
}

/** What every tool answers with, as `structuredContent`. */
export type Envelope<T = unknown> = SuccessEnvelope<T> | FailureEnvelope;

export interface SuccessEnvelope<T = unknown> {
  ok: true;
  message: string;
  data: T;
  evidencePaths: string[];
  warnings: string[];
  partial?: true;
  meta: EnvelopeMeta;
}

export interface FailureEnvelope {
  ok: false;
  message: string;
  error: {
    code: ErrorCode;
    field?: string;
    retryable: boolean;
    traceId: string;
    status?: number;
    /** With CONFIRMATION_REQUIRED: repeat the same call with `"_confirm": operationId` to run it once. */
    operationId?: string;
    /**
     * With CONFIRMATION_REQUIRED: when the operation id stops being valid; with CREDENTIALS_MISSING: when the connect
     * link stops opening (ISO time).
     */
    expiresAt?: string;
    /** With CREDENTIALS_MISSING: where this caller connects the credential (a link for them only, opened once). */
    connectUrl?: string;
  };
  warnings: string[];
  meta: EnvelopeMeta;
}

/**
 * The `outputSchema` a tool advertises: the envelope, compact, with `data` described by the tool's own output schema.
 * Every tool repeats the same few hundred bytes of envelope (the types a client acts on and what a failure must
 * carry, no prose: the envelope is documented once, in the server's instructions and the README), so a large
 * composition's tools/list stays small while a client can still validate every answer, `data` included.
 */
export function envelopeSchema(dataSchema: JsonSchema | undefined): JsonSchema {
  const { $schema: _dialect, ...data } = dataSchema ?? {};
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    properties: {
      ok: BOOLEAN,
      message: STRING,
      data,
      evidencePaths: STRINGS,
      warnings: STRINGS,
      error: { type: "object", required: ["code", "retryable", "traceId"] },
      meta: { type: "object" },
    },
    required: ["ok", "message", "meta"],
  };
}

const BOOLEAN = { type: "boolean" };
const STRING = { type: "string" };
const STRINGS = { type: "array", items: STRING };

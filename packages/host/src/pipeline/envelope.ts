import type { Envelope, ErrorCode, FailureEnvelope, SuccessEnvelope } from "@skillport/core";
import { isSkillError, isToolResult } from "@skillport/core";
import type { ToolEntry } from "../registry/registry.js";

/** What one call answers: the envelope, and the text rendering for clients that ignore structured output. */
export interface CallOutcome {
  envelope: Envelope;
  isError: boolean;
  text: string;
  /**
   * Set when a dangerous call should be confirmed by asking the user (the client supports elicitation): the
   * transport asks with this message and calls again with the answer. The envelope is the fallback answer.
   */
  elicit?: { message: string; state: string };
}

/** Facts the pipeline gathered about the call. */
export interface CallFacts {
  entry: ToolEntry;
  traceId: string;
  startedAt: number;
  /** What the call will do, from the tool's buildBrief, once the arguments are valid. */
  brief: string | undefined;
}

/** Shapes a capability's return value (plain data or a `result(...)`) into a success envelope. */
export function successOutcome(value: unknown, facts: CallFacts): CallOutcome {
  const parts = isToolResult(value) ? value : undefined;
  const data = parts === undefined ? value : parts.data;
  const envelope: SuccessEnvelope = {
    ok: true,
    message: parts?.message ?? `${facts.entry.tool.title}: done`,
    data: data === undefined ? null : data,
    evidencePaths: [...(parts?.evidencePaths ?? [])],
    warnings: [...(parts?.warnings ?? [])],
    ...(parts?.partial === true ? { partial: true as const } : {}),
    meta: metaOf(facts),
  };
  return { envelope, isError: false, text: `${envelope.message}\n${JSON.stringify(envelope.data)}` };
}

/** A failure envelope with a stable code; `field` is the JSON pointer of the argument at fault. */
export function failureOutcome(
  facts: CallFacts,
  code: ErrorCode,
  message: string,
  extra: {
    field?: string | undefined;
    retryable?: boolean;
    status?: number | undefined;
    operationId?: string;
    expiresAt?: string;
  } = {},
): CallOutcome {
  const error: FailureEnvelope["error"] = {
    code,
    retryable: extra.retryable ?? false,
    traceId: facts.traceId,
    ...(extra.field === undefined ? {} : { field: extra.field }),
    ...(extra.status === undefined ? {} : { status: extra.status }),
    ...(extra.operationId === undefined ? {} : { operationId: extra.operationId, expiresAt: extra.expiresAt }),
  };
  const envelope: FailureEnvelope = { ok: false, message, error, warnings: [], meta: metaOf(facts) };
  const at = extra.field === undefined ? "" : ` (at ${extra.field})`;
  return { envelope, isError: true, text: `${code}${at}: ${message}` };
}

/**
 * Normalises anything a capability threw, in one place: a SkillError keeps its code and message; an abort
 * becomes CANCELLED; anything else becomes INTERNAL with no stack or message passed to the client.
 */
export function thrownOutcome(error: unknown, facts: CallFacts, signal: AbortSignal): CallOutcome {
  if (isSkillError(error)) {
    return failureOutcome(facts, error.code, error.message, {
      field: error.field,
      retryable: error.retryable,
      status: error.status,
    });
  }
  if (signal.aborted) {
    return failureOutcome(facts, "CANCELLED", `${facts.entry.fullName} was cancelled before it finished`, {
      retryable: true,
    });
  }
  return failureOutcome(
    facts,
    "INTERNAL",
    `${facts.entry.fullName} failed with an internal error; the server log has the details under traceId ${facts.traceId}`,
  );
}

// --- internal ---

function metaOf(facts: CallFacts): Envelope["meta"] {
  return {
    traceId: facts.traceId,
    durationMs: Math.round((performance.now() - facts.startedAt) * 1000) / 1000,
    tool: facts.entry.fullName,
    toolVersion: facts.entry.instance.version,
  };
}

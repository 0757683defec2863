import type { ErrorCode, FailureEnvelope, SuccessEnvelope } from "@skillport/core";
import { isSkillError, isToolResult } from "@skillport/core";
import type { Call, CallOutcome } from "./call.js";

/** An outcome before its stage is named. */
export type Outcome = Omit<CallOutcome, "stage" | "tool">;

/** Shapes a capability's return value (plain data or a `result(...)`) into a success envelope. */
export function successOutcome(call: Call, value: unknown, title: string, warnings: readonly string[] = []): Outcome {
  const parts = isToolResult(value) ? value : undefined;
  const data = parts === undefined ? value : parts.data;
  const envelope: SuccessEnvelope = {
    ok: true,
    message: parts?.message ?? `${title}: done`,
    data: data === undefined ? null : data,
    evidencePaths: [...(parts?.evidencePaths ?? [])],
    warnings: [...warnings, ...(parts?.warnings ?? [])],
    ...(parts?.partial === true ? { partial: true as const } : {}),
    meta: metaOf(call),
  };
  return { envelope, isError: false };
}

/** A failure envelope with a stable code; `field` is the JSON pointer of the argument at fault. */
export function failureOutcome(
  call: Call,
  code: ErrorCode,
  message: string,
  extra: {
    field?: string | undefined;
    retryable?: boolean;
    status?: number | undefined;
    operationId?: string;
    expiresAt?: string;
    connectUrl?: string;
  } = {},
): Outcome {
  const error: FailureEnvelope["error"] = {
    code,
    retryable: extra.retryable ?? false,
    traceId: call.traceId,
    ...(extra.field === undefined ? {} : { field: extra.field }),
    ...(extra.status === undefined ? {} : { status: extra.status }),
    ...(extra.operationId === undefined ? {} : { operationId: extra.operationId, expiresAt: extra.expiresAt }),
    ...(extra.connectUrl === undefined ? {} : { connectUrl: extra.connectUrl, expiresAt: extra.expiresAt }),
  };
  return { envelope: { ok: false, message, error, warnings: [], meta: metaOf(call) }, isError: true };
}

/**
 * Normalises anything a capability threw, in one place: a SkillError keeps its code and message; an abort
 * becomes CANCELLED; anything else becomes INTERNAL with no stack or message passed to the client.
 */
export function thrownOutcome(call: Call, error: unknown, stop: { aborted: boolean }): Outcome {
  if (isSkillError(error)) {
    return failureOutcome(call, error.code, error.message, {
      field: error.field,
      retryable: error.retryable,
      status: error.status,
    });
  }
  if (stop.aborted) {
    return failureOutcome(call, "CANCELLED", `${call.entry.fullName} was cancelled before it finished`, {
      retryable: true,
    });
  }
  return failureOutcome(
    call,
    "INTERNAL",
    `${call.entry.fullName} failed with an internal error; the server log has the details under traceId ${call.traceId}`,
  );
}

// --- internal ---

function metaOf(call: Call): SuccessEnvelope["meta"] {
  return {
    traceId: call.traceId,
    durationMs: Math.round((performance.now() - call.startedAt) * 1000) / 1000,
    tool: call.entry.fullName,
    toolVersion: call.entry.instance.version,
  };
}

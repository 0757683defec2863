import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError } from "@modelcontextprotocol/client";
import type { ClientError, ClientErrorCode } from "./types.js";

/** A {@link ClientError} whose message starts with its source, `[name]`. */
export function clientError(
  source: string,
  code: ClientErrorCode,
  message: string,
  extra: Partial<ClientError> = {},
): ClientError {
  return { ...extra, code, message: `[${source}] ${message}` };
}

/** What was going on when something failed, for the message. */
export interface FailureContext {
  source: string;
  /** e.g. "starting", `calling "echo"` */
  doing: string;
  /** The caller's signal, to tell its abort from a timeout (the SDK rejects both with REQUEST_TIMEOUT). */
  signal?: AbortSignal | undefined;
  timeoutMs?: number | undefined;
  /** Said when the connection closed: what the process or worker left behind (exit code, stderr's tail). */
  closed?: () => string;
}

/**
 * Turns whatever the SDK, the transport or the network threw into a ClientError, in one place. An SDK error's
 * code decides; a JSON-RPC error keeps its code; anything else that is not an Error is a bug (INTERNAL).
 */
export function toClientError(cause: unknown, context: FailureContext): ClientError {
  const { source, doing } = context;
  if (context.signal?.aborted) {
    return clientError(source, "CANCELLED", `${doing}: cancelled by the caller`);
  }
  if (cause instanceof SdkHttpError) {
    const status = cause.status;
    if (status === 401 || status === 403) {
      return clientError(
        source,
        "UNAUTHORIZED",
        `${doing}: the server refused the credentials (HTTP ${status}); check the bearer token or headers: ${cause.message}`,
        { status },
      );
    }
    return clientError(source, "UNAVAILABLE", `${doing}: the server answered HTTP ${status}: ${cause.message}`, {
      status,
    });
  }
  if (cause instanceof SdkError) {
    switch (cause.code) {
      case SdkErrorCode.RequestTimeout:
        return clientError(
          source,
          "TIMEOUT",
          `${doing}: no answer within ${context.timeoutMs ?? 60_000} ms; the server was told to cancel`,
        );
      case SdkErrorCode.ConnectionClosed:
      case SdkErrorCode.NotConnected:
      case SdkErrorCode.SendFailed:
        return clientError(source, "UNAVAILABLE", `${doing}: the connection closed${closedDetail(context)}`);
      default:
        return clientError(source, "UNAVAILABLE", `${doing}: ${cause.message} (${cause.code})`);
    }
  }
  if (cause instanceof ProtocolError) {
    // The SDK's own check of an answer against the tool's output schema throws as if the server had answered -32602.
    if (OUTPUT_CHECK.test(cause.message)) {
      return clientError(
        source,
        "PROTOCOL_ERROR",
        `${doing}: the answer fails the tool's output schema: ${cause.message}`,
      );
    }
    return clientError(source, "PROTOCOL_ERROR", `${doing}: the server answered ${cause.code}: ${cause.message}`, {
      rpcCode: cause.code,
    });
  }
  if (isAbort(cause)) return clientError(source, "CANCELLED", `${doing}: cancelled`);
  if (cause instanceof Error) {
    // fetch() failing (refused, reset, DNS), a spawn error (ENOENT), a worker's error: the server is not there.
    const code = (cause as { code?: unknown }).code;
    const why = typeof code === "string" ? `${cause.message} (${code})` : cause.message;
    const inner = cause.cause instanceof Error ? `: ${cause.cause.message}` : "";
    return clientError(source, "UNAVAILABLE", `${doing}: ${why}${inner}${closedDetail(context)}`);
  }
  return clientError(source, "INTERNAL", `${doing}: unexpected failure: ${String(cause)}`);
}

/** Whether a failure means the connection is gone (not a refusal of this one request). */
export function losesConnection(cause: unknown): boolean {
  if (cause instanceof SdkHttpError || cause instanceof ProtocolError) return false;
  if (cause instanceof SdkError) {
    return [SdkErrorCode.ConnectionClosed, SdkErrorCode.NotConnected, SdkErrorCode.SendFailed].includes(cause.code);
  }
  // fetch() failing (connection refused or reset) is a TypeError; a timeout or abort is not a loss.
  return cause instanceof TypeError;
}

// --- internal ---

/** The messages of the SDK client's own refusals of an answer (its output schema check), not the server's. */
const OUTPUT_CHECK =
  /^(?:Structured content does not match|Failed to validate structured content|Tool .* has an (?:invalid outputSchema|output schema but did not return))/;

function closedDetail(context: FailureContext): string {
  const detail = context.closed?.();
  return detail === undefined || detail === "" ? "" : ` (${detail})`;
}

function isAbort(cause: unknown): boolean {
  return cause instanceof Error && (cause.name === "AbortError" || cause.name === "TimeoutError");
}

// The call protocol between the host and an isolated instance: a worker thread (postMessage) or a child process
// (Node's IPC channel with structured-clone serialization). Both speak these messages.
import type { Content, SecretFinding } from "@skillport/core";
import type { CapabilityTarget } from "../capability.js";
import type { InputFeature, InputRequest } from "../tool-entry.js";

/**
 * What an isolated instance is started with: one instance's skill and config, and of its credentials only those
 * the skill reads itself. A credential the skill declares with `fetch` stays in the host; `configured` names
 * every configured credential so `ctx.hasCredential` can answer without the value.
 */
export interface WorkerSetup {
  entryUrl: string;
  config: unknown;
  credentials: Record<string, string | undefined>;
  configured: string[];
}

/** A request `ctx.fetch` sends to the host, which adds held credentials and runs it. */
export interface ProxiedRequest {
  url: string;
  method: string;
  headers: [string, string][];
  body: Uint8Array | undefined;
  redirect: "follow" | "manual" | "error";
}

/** The host's answer to a {@link ProxiedRequest}: the whole response, or why fetch failed. */
export type ProxiedResponse =
  | {
      ok: true;
      status: number;
      statusText: string;
      headers: [string, string][];
      body: Uint8Array;
      url: string;
    }
  | {
      ok: false;
      name: string;
      message: string;
      /** The network error's code (`ECONNREFUSED`), as fetch puts it in `cause.code`. */
      code: string | undefined;
      /** Set when the host refused the request itself (a SkillError, e.g. UNAVAILABLE for a bad origin). */
      skillCode: string | undefined;
    };

/** Host → isolate. */
export type ToWorker =
  | { type: "setup"; setup: WorkerSetup }
  | {
      type: "call";
      id: number;
      target: CapabilityTarget;
      params: Record<string, unknown>;
      traceId: string;
      auth: { id: string; scopes: readonly string[] } | undefined;
      /** What the client can answer (`ctx.clientSupports`). */
      supports: InputFeature[];
      /**
       * The caller's own credentials the skill reads itself, for this call only (per-caller slots), with which are
       * configured; absent when the call uses the instance's.
       */
      own?: { credentials: Record<string, string | undefined>; configured: string[] };
    }
  | { type: "abort"; id: number; reason: "timeout" | "cancel" }
  | { type: "secret-found"; id: number; ask: number; finding: SecretFinding | undefined }
  /** The client's answer to a question the capability asked; none comes when the client must be asked first. */
  | { type: "input-answer"; id: number; ask: number; answer: unknown }
  | { type: "fetched"; id: number; ask: number; response: ProxiedResponse };

/** Isolate → host. */
export type FromWorker =
  | { type: "ready" }
  | { type: "find-secret"; id: number; ask: number; content: string | Uint8Array }
  | { type: "fetch"; id: number; ask: number; request: ProxiedRequest }
  | { type: "fetch-abort"; id: number; ask: number }
  /** `ctx.elicit`, `ctx.sample`, `ctx.listRoots`: the host answers from the client's answers, or asks the client. */
  | { type: "input"; id: number; ask: number; key: string; request: InputRequest }
  | { type: "stray"; message: string }
  | { type: "progress"; id: number; done: number; total: number | undefined; message: string | undefined }
  | {
      type: "log";
      id: number;
      level: "debug" | "info" | "warn" | "error";
      message: string;
      data: Record<string, unknown> | undefined;
    }
  | {
      type: "done";
      id: number;
      ok: true;
      result: {
        data: unknown;
        message: string | undefined;
        evidencePaths: readonly string[] | undefined;
        warnings: readonly string[] | undefined;
        partial: boolean | undefined;
        content: readonly Content[] | undefined;
        wrapped: boolean;
      };
    }
  | {
      type: "done";
      id: number;
      ok: false;
      error:
        | {
            skill: true;
            code: string | undefined;
            message: string;
            field: string | undefined;
            retryable: boolean | undefined;
            status: number | undefined;
          }
        | { skill: false; name: string | undefined; message: string; stack: string | undefined };
    };

import type { SecretFinding } from "@skillport/core";

/** What an isolation worker is started with: one instance's skill, config and credentials, nothing else. */
export interface WorkerSetup {
  entryUrl: string;
  config: unknown;
  credentials: Record<string, string | undefined>;
}

/** Host → worker. */
export type ToWorker =
  | {
      type: "call";
      id: number;
      tool: string;
      params: Record<string, unknown>;
      traceId: string;
      auth: { id: string; scopes: readonly string[] } | undefined;
    }
  | { type: "abort"; id: number; reason: "timeout" | "cancel" }
  | { type: "secret-found"; id: number; ask: number; finding: SecretFinding | undefined };

/** Worker → host. */
export type FromWorker =
  | { type: "ready" }
  | { type: "find-secret"; id: number; ask: number; content: string | Uint8Array }
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

import type { McpTool, McpToolResult } from "@skillport/core";
import type { PatternEngine } from "../schema/ajv.js";

// An upstream MCP server (the manifest's `servers`) is reached through @skillport/client. The host does not depend
// on that package (the client's inproc transport runs a host, so the dependency would go both ways): whoever
// creates the host passes `connect` (the CLI passes @skillport/client/node's), and the host names here only the part
// of the client's contract it uses. A client handle fits these types as it is.

/** A tool as an upstream server lists it (MCP's tool listing, the client's `ToolSpec`). */
export type UpstreamTool = McpTool;

/** A failure the client reports as a value (the client's `ClientError`). */
export interface UpstreamError {
  code: string;
  message: string;
  rpcCode?: number;
  status?: number;
}

/** What an upstream tool answered (MCP's tool result, the client's `ToolResult`). */
export type UpstreamResult = McpToolResult;

/** How an upstream server names itself in its handshake (MCP's `serverInfo`; the client's `ServerInfo`). */
export interface UpstreamServerInfo {
  name: string;
  version: string;
}

/** The part of a `@skillport/client` handle the host uses. */
export interface UpstreamHandle {
  start(): Promise<
    | { ok: true; tools: readonly UpstreamTool[]; server?: UpstreamServerInfo | undefined }
    | { ok: false; error: UpstreamError }
  >;
  stop(): Promise<void>;
  callTool(
    name: string,
    args: Record<string, unknown>,
    options: {
      signal: AbortSignal;
      timeoutMs: number;
      onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
      /** Told of each change of the server's task, when it runs the call as one (the client waits for it). */
      onTaskStatus?: (task: { status: string; statusMessage?: string }) => void;
      /** Sent as the request's `_meta` (W3C `traceparent`, `tracestate`); over HTTP as headers too. */
      meta?: Record<string, string>;
    },
  ): Promise<{ ok: true; result: UpstreamResult } | { ok: false; error: UpstreamError; result?: UpstreamResult }>;
  readonly state: {
    readonly value: string;
    readonly tools: readonly UpstreamTool[] | undefined;
    subscribe(
      listener: (snapshot: {
        value: string;
        error?: UpstreamError;
        tools?: readonly UpstreamTool[];
        change: "state" | "tools";
      }) => void,
    ): () => void;
  };
}

/** A secret given to an upstream server as it is: read by the host from its environment. */
export interface GivenCredential<To> {
  from: { value: string };
  to: To;
}

/** How the host asks the client for a connection: a subset of `@skillport/client/node`'s `ServerSpec`. */
export type UpstreamSpec =
  | {
      transport: "stdio";
      name: string;
      command: string;
      args: string[];
      cwd: string;
      env: Record<string, string>;
      inheritEnv: string[];
      credentials: Record<string, GivenCredential<{ env: string }>>;
      startTimeoutMs: number;
      maxResultBytes: number;
      idleTimeoutMs?: number;
    }
  | {
      transport: "http";
      name: string;
      url: string;
      headers: Record<string, string>;
      credentials: Record<string, GivenCredential<{ header: string }>>;
      startTimeoutMs: number;
      maxResultBytes: number;
    };

/** Opens a handle on an upstream MCP server (nothing is started before its first use): the client's `connect`. */
export type UpstreamConnect = (spec: UpstreamSpec) => UpstreamHandle;

/**
 * Imports the client the host reaches upstream servers with, when the manifest has any: its `connect`, and its
 * `linearRegExp`, which compiles the patterns of the servers' schemas for RE2 (linear time).
 *
 * @example
 * const client: UpstreamClient = () => import("@skillport/client/node");
 */
export type UpstreamClient = () => Promise<{ connect: UpstreamConnect; linearRegExp: PatternEngine }>;

// @skillport/client: the browser-safe core — the handle contract, the HTTP transport, McpHub and the
// MessagePort transport. Nothing here imports a Node built-in (a test bundles it for a browser and checks).
// Any new export added here becomes public API. Use named exports, not wildcards.
// stdio, inproc and worker live in @skillport/client/node.

export { connect } from "./connect.js";
export type {
  HubEvent,
  HubServer,
  HubStartResult,
  HubTool,
  HubWarning,
  McpHubOptions,
  ReconnectOptions,
  ServerOrigin,
} from "./hub.js";
export { McpHub } from "./hub.js";
export type { MessagePortLike } from "./message-port-transport.js";
export { MessagePortTransport } from "./message-port-transport.js";
export type {
  BaseSpec,
  CallToolOptions,
  CallToolOutcome,
  ClientError,
  ClientErrorCode,
  ConnectionState,
  Credential,
  CredentialSource,
  HttpSpec,
  InputRequest,
  InputResponses,
  ListToolsResult,
  McpHandle,
  ObservableState,
  Outcome,
  Progress,
  PromptResult,
  PromptSpec,
  ProtocolChoice,
  RequestOptions,
  ResourceContents,
  ResourceSpec,
  ResourceTemplateSpec,
  ServerInfo,
  StartResult,
  StateSnapshot,
  TaskCallOutcome,
  TaskHandle,
  TaskInfo,
  TaskStatus,
  ToolResult,
  ToolSpec,
  TransportKind,
} from "./types.js";

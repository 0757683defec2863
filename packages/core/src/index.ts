// Any new export added here becomes public API. Use named exports, not wildcards.

export type {
  AudioContent,
  Content,
  EmbeddedResourceContent,
  ImageContent,
  PromptMessage,
  ResourceContents,
  ResourceLinkContent,
  TextContent,
} from "./content.js";
export { CONTENT_TYPES } from "./content.js";
export type {
  ElicitAnswer,
  ElicitRequest,
  Root,
  SampleAnswer,
  SampleRequest,
  SamplingMessage,
  SecretFinding,
  SkillContext,
  SkillLogger,
} from "./context.js";
export type { PromptDefinition, PromptResult, PromptSpec } from "./define-prompt.js";
export { definePrompt } from "./define-prompt.js";
export type {
  Completer,
  CompletionContext,
  ReadResult,
  ResourceDefinition,
  ResourceSpec,
  ResourceTemplateDefinition,
  ResourceTemplateSpec,
  TemplateResource,
} from "./define-resource.js";
export { defineResource, defineResourceTemplate } from "./define-resource.js";
export type {
  CredentialFetch,
  CredentialSpec,
  PromptArgumentListing,
  RegisteredCredential,
  RegisteredCredentialFetch,
  RegisteredPrompt,
  RegisteredResource,
  RegisteredResourceTemplate,
  RegisteredSkill,
  RegisteredTool,
  RegisterSkill,
  SkillDiagnostic,
  SkillSpec,
} from "./define-skill.js";
export { defineSkill } from "./define-skill.js";
export type {
  Capability,
  DataOf,
  LegacyInput,
  ParamsOf,
  TaskSupport,
  ToolDefinition,
  ToolSpec,
} from "./define-tool.js";
export { defineTool } from "./define-tool.js";
export { escapePointer, resolveRef } from "./json-pointer.js";
export type { McpContentBlock, McpResourceContents, McpTool, McpToolResult } from "./mcp.js";
export type {
  Envelope,
  EnvelopeMeta,
  FailureEnvelope,
  ResultExtras,
  SuccessEnvelope,
  ToolResult,
} from "./result.js";
export { envelopeSchema, isToolResult, partialResult, result, withEvidence } from "./result.js";
export type { Risk, ToolAnnotations } from "./risk.js";
export { RISKS, riskAnnotations } from "./risk.js";
export type { JsonSchema, SchemaInput } from "./schema.js";
export { isZodSchema, JSON_SCHEMA_DIALECT, toJsonSchema } from "./schema.js";
export type { ErrorCode, SkillErrorOptions } from "./skill-error.js";
export { ERROR_CODES, isSkillError, SkillError } from "./skill-error.js";

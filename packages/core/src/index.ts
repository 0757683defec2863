// Any new export added here becomes public API. Use named exports, not wildcards.

export type { SecretFinding, SkillContext, SkillLogger } from "./context.js";
export type {
  CredentialFetch,
  CredentialSpec,
  RegisteredCredential,
  RegisteredCredentialFetch,
  RegisteredSkill,
  RegisteredTool,
  RegisterSkill,
  SkillDiagnostic,
  SkillSpec,
} from "./define-skill.js";
export { defineSkill } from "./define-skill.js";
export type { Capability, DataOf, LegacyInput, ParamsOf, ToolDefinition, ToolSpec } from "./define-tool.js";
export { defineTool } from "./define-tool.js";
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

// Any new export added here becomes public API. Use named exports, not wildcards.

export type { ConformanceSetup, TestSkillOptions } from "./conformance.js";
export { ConformanceError } from "./conformance-error.js";
export type {
  AskedQuestion,
  LogRecord,
  MockClient,
  MockContext,
  MockContextOptions,
  ProgressCall,
} from "./mock-context.js";
export { mockContext } from "./mock-context.js";
export type { TestCallOptions, TestHost, TestHostOptions, TestSkill } from "./test-host.js";
export { createTestHost } from "./test-host.js";
export { testSkill } from "./test-skill.js";

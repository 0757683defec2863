import type { SkillContext } from "@skillport/core";
import { mockContext } from "@skillport/testing";
import { NotesConfig } from "../src/index.js";

/**
 * A context for calling a capability directly, as the host would: config validated by the skill's schema.
 *
 * @example
 * const ctx = makeContext({ vault: copy.path });
 */
export function makeContext(
  config: { vault: string } & Partial<NotesConfig>,
  signal: AbortSignal = new AbortController().signal,
): SkillContext<NotesConfig> {
  return mockContext({ config: NotesConfig.parse(config), signal, traceId: "t" });
}

import type { SkillContext } from "@skillport/core";
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
  return {
    signal,
    config: NotesConfig.parse(config),
    token: undefined,
    credentials: {},
    traceId: "t",
    progress: () => {},
    log: { debug() {}, info() {}, warn() {}, error() {} },
  };
}

import type { RegisterSkill } from "@skillport/core";
import { afterAll, beforeAll, describe, it } from "vitest";
import type { ConformanceCheck, TestSkillOptions } from "./conformance.js";
import { planConformance } from "./conformance.js";

// A config setup or a first host start can take a while on a cold machine; a check never should.
const TIMEOUT = 30_000;
const GROUPS: readonly ConformanceCheck["group"][] = ["register", "spec lint", "SKILL.md", "spec parity", "runtime"];

/**
 * The conformance suite every skill runs, in one line of a vitest test file. It registers one test per tool and
 * rule group, each failing with a message that names the rule and the tool (`[input-described] search_notes: …`):
 *
 * - spec lint: `<verb>_<object>` names of at most 64 characters, a meaningful description, every input property
 *   described, strings, arrays and numbers bounded, `additionalProperties: false`, valid examples, a declared risk,
 *   a buildBrief on write and dangerous tools, pure (the same line for the same input on every example, no throw,
 *   and here no I/O): the rules `skillport check` applies too;
 * - SKILL.md (when the package folder has one, or `skillMd` names it): frontmatter that opens the file, with the
 *   skill's name (Agent Skills rules) and a description of at most 1024 characters, and every tool the text names
 *   in code (`search_notes`) a tool of the skill, or an argument, field, prompt or resource of it;
 * - spec parity: generated arguments are accepted or refused alike by the zod input and by the host's validator on
 *   the published JSON Schema;
 * - runtime: an already-aborted `ctx.signal` stops the call; a plain Error thrown by the capability answers
 *   INTERNAL without its message; a canary credential never appears in a result, an error, a log or a progress
 *   message; the data each example answers matches the tool's output schema, as clients check it.
 *
 * The runtime checks call the capability with each example, once (`examples: "skip"` turns that off), and the
 * given `config`, with no server and no real credential. An output check whose examples all ended in an error had
 * nothing to check and shows as skipped, with the reason. Log and audit lines of the hosts it starts are dropped
 * unless `logs: "stderr"`, so a passing suite prints nothing.
 *
 * @example
 * // skills/skill-weather/test/conformance.test.ts
 * import { testSkill } from "@skillport/testing";
 * import { register } from "../src/index.js";
 *
 * testSkill(register, { config: { units: "metric" } });
 */
export function testSkill(register: RegisterSkill, options: TestSkillOptions = {}): void {
  const plan = planConformance(register, options);
  describe(`skill "${plan.skillName}" conformance`, () => {
    beforeAll(() => plan.prepare(), TIMEOUT);
    afterAll(() => plan.dispose());
    for (const group of GROUPS) {
      const checks = plan.checks.filter((c) => c.group === group);
      if (checks.length === 0) continue;
      describe(group, () => {
        for (const check of checks) it(check.title, (context) => check.run((reason) => context.skip(reason)), TIMEOUT);
      });
    }
  });
}

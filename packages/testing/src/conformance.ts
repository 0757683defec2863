import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { RegisteredSkill, RegisteredTool, RegisterSkill } from "@skillport/core";
import { isZodSchema } from "@skillport/core";
import { lintSkill, lintSkillDoc } from "@skillport/tooling";
import type { ExampleRun } from "./conformance-checks.js";
import {
  abortCheck,
  canaryCheck,
  lintCheck,
  normalisedCheck,
  outputCheck,
  parityCheck,
  runExamples,
  withBriefsWithoutIo,
} from "./conformance-checks.js";
import { ConformanceError } from "./conformance-error.js";
import { messageOf } from "./message-of.js";
import { createTestHost } from "./test-host.js";
/** What a `setup` hook may hand back. */
export interface ConformanceSetup {
  /** The instance config for running the examples, as written in a manifest. */
  config?: Record<string, unknown>;
  /** Runs after the suite, e.g. to remove a temporary folder. */
  teardown?: () => void | Promise<void>;
}

/** Options for `testSkill()`. */
export interface TestSkillOptions {
  /**
   * The instance config the examples run with, as written in a manifest: validated against the skill's config
   * schema, defaults filled, relative paths resolved against the current folder.
   * @default {}
   */
  config?: Record<string, unknown>;
  /** Runs once before the suite (a fresh temporary folder, a fake upstream server); its `config` wins. */
  setup?: () => ConformanceSetup | undefined | Promise<ConformanceSetup | undefined>;
  /**
   * `"run"` calls each tool's examples (or, without examples, valid generated arguments) to check the aborted
   * signal, the canary token and the data against the output schema; `"skip"` runs only the checks that never
   * call the capability.
   * @default "run"
   */
  examples?: "run" | "skip";
  /**
   * Generated samples per tool for the zod ↔ JSON Schema parity check.
   * @default 200
   */
  numRuns?: number;
  /** A fast-check seed, to replay a failure it printed. */
  seed?: number;
  /**
   * Lint warnings (a tool without examples) fail the suite too.
   * @default false
   */
  strict?: boolean;
  /**
   * The skill's `SKILL.md`, checked for its frontmatter (a name that is the skill's, a description) and for the
   * tools it names (each one a tool of the skill): the rules `skillport check` applies too. `false` skips it.
   * @default "SKILL.md" in the current folder (the package folder vitest runs in), when there is one
   */
  skillMd?: string | false;
  /**
   * Where the log and audit lines of the hosts the suite starts go: `"silent"` drops them, so a passing run prints
   * nothing; `"stderr"` writes them as `skillport serve` would, to watch a failing check.
   * @default "silent"
   */
  logs?: "silent" | "stderr";
}

/** One check of the suite: a group, a title that names the tool, and what to run. */
export interface ConformanceCheck {
  group: "register" | "spec lint" | "SKILL.md" | "spec parity" | "runtime";
  title: string;
  /**
   * Throws a {@link ConformanceError} on failure. When it had nothing to check, it calls `skip` with the reason
   * (vitest's `context.skip`, which shows the test as skipped) and returns.
   */
  run(skip: (reason: string) => void): Promise<void>;
}

/** The checks for one skill, and the hooks that prepare and dispose what they share. */
export interface ConformancePlan {
  skillName: string;
  checks: ConformanceCheck[];
  prepare(): Promise<void>;
  dispose(): Promise<void>;
}

/** Builds the checks `testSkill()` registers, runner-agnostic. */
export function planConformance(register: RegisterSkill, options: TestSkillOptions = {}): ConformancePlan {
  let skill: RegisteredSkill;
  try {
    skill = register();
  } catch (error) {
    const check: ConformanceCheck = {
      group: "register",
      title: "register() returns the skill",
      run: async () => {
        throw new ConformanceError("register", undefined, messageOf(error));
      },
    };
    return { skillName: "(unregistered)", checks: [check], prepare: async () => {}, dispose: async () => {} };
  }

  const canary = `skillport-canary-${randomBytes(12).toString("hex")}`;
  // The spec lint checks that buildBrief is pure (same line for the same input, no throw); run under the I/O trap,
  // a brief that does I/O throws there too, so a bad brief fails one check with one message.
  const findings = lintSkill(withBriefsWithoutIo(skill));
  const callsCapability = (options.examples ?? "run") === "run";
  const shared = sharedState(skill, register, options, callsCapability, canary);
  const checks: ConformanceCheck[] = [];

  for (const tool of skill.tools) {
    checks.push({
      group: "spec lint",
      title: `${tool.name} follows the spec lint`,
      run: async () => lintCheck(tool, findings, options.strict === true),
    });
  }
  const skillMd = skillMdOf(options);
  if (skillMd !== undefined) {
    checks.push({
      group: "SKILL.md",
      title: `SKILL.md describes ${skill.name}: its frontmatter, and the tools it names exist`,
      run: async () => skillMdCheck(skill, skillMd),
    });
  }
  for (const tool of skill.tools) {
    if (!isZodSchema(tool.input)) continue;
    checks.push({
      group: "spec parity",
      title: `${tool.name}: zod and the published JSON Schema accept the same arguments`,
      run: async () => parityCheck(tool, options),
    });
  }
  for (const tool of skill.tools) {
    if (callsCapability) {
      checks.push({
        group: "runtime",
        title: `${tool.name} respects an already-aborted signal`,
        run: async () => abortCheck(tool, await shared.config(), canary),
      });
    }
    checks.push({
      group: "runtime",
      title: `${tool.name}: a thrown non-SkillError answers INTERNAL without its message`,
      run: async () => normalisedCheck(skill, tool, canary, options.logs ?? "silent"),
    });
    if (callsCapability) {
      checks.push({
        group: "runtime",
        title: `${tool.name} never shows the credential (a canary token) in its result`,
        run: async () => canaryCheck(tool, await shared.runs(tool), canary),
      });
      if (tool.outputSchema !== undefined) {
        checks.push({
          group: "runtime",
          title: `${tool.name}: each example's data matches its output schema`,
          run: async (skip) => outputCheck(tool, await shared.runs(tool), skip),
        });
      }
    }
  }
  return { skillName: skill.name, checks, prepare: shared.prepare, dispose: shared.dispose };
}

// --- internal ---

/** The SKILL.md to check: the one given, else the current folder's when it has one; undefined for none. */
function skillMdOf(options: TestSkillOptions): string | undefined {
  if (options.skillMd === false) return undefined;
  if (options.skillMd !== undefined) return path.resolve(options.skillMd);
  const here = path.resolve("SKILL.md");
  return existsSync(here) ? here : undefined;
}

async function skillMdCheck(skill: RegisteredSkill, file: string): Promise<void> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new ConformanceError("skill-md-frontmatter", undefined, `cannot read ${file}: ${messageOf(error)}`);
  }
  const [first, ...more] = lintSkillDoc(text, skill).filter((f) => f.severity === "error");
  if (first === undefined) return;
  const rest = more.map((f) => `\n  ${f.rule}: ${f.message}`).join("");
  throw new ConformanceError(first.rule, undefined, `${file}: ${first.message}${rest}`);
}

/**
 * What the runtime checks share, prepared once: the config, the teardown, and each tool's example runs. The
 * examples run once per tool (they may write: a second run could meet its own file), and the canary and output
 * checks read the same runs.
 */
function sharedState(
  skill: RegisteredSkill,
  register: RegisterSkill,
  options: TestSkillOptions,
  needsConfig: boolean,
  canary: string,
) {
  let prepared: Promise<unknown> | undefined;
  let teardown: (() => void | Promise<void>) | undefined;
  const runs = new Map<string, Promise<ExampleRun[]>>();
  const prepare = async (): Promise<unknown> => {
    const set = (await options.setup?.()) ?? {};
    teardown = set.teardown;
    const config = set.config ?? options.config;
    if (skill.configSchema === undefined || !needsConfig) return {};
    // The host validates the config, fills its defaults and resolves its paths, exactly as it would when serving.
    let host: Awaited<ReturnType<typeof createTestHost>>;
    try {
      host = await createTestHost({
        skills: [{ register, ...(config === undefined ? {} : { config }) }],
        logs: options.logs ?? "silent",
      });
    } catch (error) {
      throw new ConformanceError(
        "config",
        undefined,
        `the examples need a valid config; pass testSkill(register, { config }) or a setup() returning one. ${messageOf(error)}`,
      );
    }
    try {
      return host.host.registry.instances[0]?.config;
    } finally {
      await host.close();
    }
  };
  const config = () => {
    prepared ??= prepare();
    return prepared;
  };
  return {
    prepare: async () => {
      await config();
    },
    config,
    runs: (tool: RegisteredTool): Promise<ExampleRun[]> => {
      let running = runs.get(tool.name);
      if (running === undefined) {
        running = config().then((c) => runExamples(skill, tool, c, canary));
        runs.set(tool.name, running);
      }
      return running;
    },
    dispose: async () => {
      await teardown?.();
    },
  };
}

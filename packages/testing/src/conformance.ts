import { randomBytes } from "node:crypto";
import type { RegisteredSkill, RegisteredTool, RegisterSkill } from "@skillport/core";
import { isSkillError, isZodSchema } from "@skillport/core";
import type { LintFinding, SchemaCheck } from "@skillport/host";
import { compileSchema, formatLintFinding, lintSkill } from "@skillport/host";
import fc from "fast-check";
import { withoutIo } from "./io-guard.js";
import { mockContext } from "./mock-context.js";
import { nearSchema } from "./near-schema.js";
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
   * signal and the canary token; `"skip"` runs only the checks that never call the capability.
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
}

/** One check of the suite: a group, a title that names the tool, and what to run. */
export interface ConformanceCheck {
  group: "register" | "spec lint" | "buildBrief" | "spec parity" | "runtime";
  title: string;
  run(): Promise<void>;
}

/** The checks for one skill, and the hooks that prepare and dispose what they share. */
export interface ConformancePlan {
  skillName: string;
  checks: ConformanceCheck[];
  prepare(): Promise<void>;
  dispose(): Promise<void>;
}

/**
 * A failed conformance check. Its message starts with the rule and the tool: `[brief-pure] create_task: …`.
 */
export class ConformanceError extends Error {
  override readonly name = "ConformanceError";
  readonly rule: string;
  readonly tool: string | undefined;

  constructor(rule: string, tool: string | undefined, message: string) {
    super(`[${rule}]${tool === undefined ? "" : ` ${tool}:`} ${message}`);
    this.rule = rule;
    this.tool = tool;
  }
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
        throw new ConformanceError("register", undefined, (error as Error).message);
      },
    };
    return { skillName: "(unregistered)", checks: [check], prepare: async () => {}, dispose: async () => {} };
  }

  const canary = `skillport-canary-${randomBytes(12).toString("hex")}`;
  const findings = lintSkill(skill);
  const runExamples = (options.examples ?? "run") === "run";
  const shared = sharedState(skill, register, options, runExamples);
  const checks: ConformanceCheck[] = [];

  for (const tool of skill.tools) {
    checks.push({
      group: "spec lint",
      title: `${tool.name} follows the spec lint`,
      run: async () => lintCheck(tool, findings, options),
    });
  }
  for (const tool of skill.tools) {
    if (tool.buildBrief === undefined) continue;
    checks.push({ group: "buildBrief", title: `${tool.name}: buildBrief is pure`, run: async () => briefCheck(tool) });
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
    if (runExamples) {
      checks.push({
        group: "runtime",
        title: `${tool.name} respects an already-aborted signal`,
        run: async () => abortCheck(tool, await shared.config(), canary),
      });
    }
    checks.push({
      group: "runtime",
      title: `${tool.name}: a thrown non-SkillError answers INTERNAL without its message`,
      run: async () => normalisedCheck(skill, tool, canary),
    });
    if (runExamples) {
      checks.push({
        group: "runtime",
        title: `${tool.name} never shows the credential (a canary token) in its result`,
        run: async () => canaryCheck(skill, tool, await shared.config(), canary),
      });
    }
  }
  return { skillName: skill.name, checks, prepare: shared.prepare, dispose: shared.dispose };
}

// --- internal ---

/** The config and teardown the runtime checks share, prepared once. */
function sharedState(skill: RegisteredSkill, register: RegisterSkill, options: TestSkillOptions, needsConfig: boolean) {
  let prepared: Promise<unknown> | undefined;
  let teardown: (() => void | Promise<void>) | undefined;
  const prepare = async (): Promise<unknown> => {
    const set = (await options.setup?.()) ?? {};
    teardown = set.teardown;
    const config = set.config ?? options.config;
    if (skill.configSchema === undefined || !needsConfig) return {};
    // The host validates the config, fills its defaults and resolves its paths, exactly as it would when serving.
    let host: Awaited<ReturnType<typeof createTestHost>>;
    try {
      host = await createTestHost({ skills: [{ register, ...(config === undefined ? {} : { config }) }] });
    } catch (error) {
      throw new ConformanceError(
        "config",
        undefined,
        `the examples need a valid config; pass testSkill(register, { config }) or a setup() returning one. ${(error as Error).message}`,
      );
    }
    try {
      return host.host.registry.instances[0]?.config;
    } finally {
      await host.close();
    }
  };
  return {
    prepare: async () => {
      prepared ??= prepare();
      await prepared;
    },
    config: () => {
      prepared ??= prepare();
      return prepared;
    },
    dispose: async () => {
      await teardown?.();
    },
  };
}

function lintCheck(tool: RegisteredTool, findings: LintFinding[], options: TestSkillOptions): void {
  const own = findings.filter((f) => f.tool === tool.name && (f.severity === "error" || options.strict === true));
  if (own.length === 0) return;
  const first = own[0] as LintFinding;
  const lines = own.map((f) => `  - ${formatLintFinding(f)}`).join("\n");
  throw new ConformanceError(
    first.rule,
    tool.name,
    `breaks ${own.length === 1 ? "a spec lint rule" : `${own.length} spec lint rules`}:\n${lines}`,
  );
}

function briefCheck(tool: RegisteredTool): void {
  const brief = tool.buildBrief as NonNullable<RegisteredTool["buildBrief"]>;
  for (const [index, args] of argumentsFor(tool).entries()) {
    const label = `example ${index + 1} ${JSON.stringify(args)}`;
    const first = withoutIo(() => brief(structuredClone(args)));
    if (first.io.length > 0) {
      throw new ConformanceError(
        "brief-pure",
        tool.name,
        `buildBrief does I/O on ${label}: it called ${first.io.join(", ")}`,
      );
    }
    if ("error" in first) {
      throw new ConformanceError("brief-pure", tool.name, `buildBrief throws on ${label}: ${messageOf(first.error)}`);
    }
    if (typeof first.value !== "string" || first.value.trim() === "") {
      throw new ConformanceError(
        "brief-pure",
        tool.name,
        `buildBrief must return a non-empty string, synchronously, on ${label}`,
      );
    }
    const second = withoutIo(() => brief(structuredClone(args)));
    if (second.value !== first.value) {
      throw new ConformanceError(
        "brief-pure",
        tool.name,
        `buildBrief answers ${JSON.stringify(first.value)} then ${JSON.stringify(second.value)} for the same ${label}; it must not read clocks, randomness or state`,
      );
    }
  }
}

function parityCheck(tool: RegisteredTool, options: TestSkillOptions): void {
  const zod = tool.input as unknown as {
    safeParse(value: unknown): { success: boolean; error?: { issues: unknown[] } };
  };
  const check = compileSchema(tool.inputSchema);
  const verdict = (value: unknown) => ({ zod: zod.safeParse(structuredClone(value)), json: check(value) });
  const details = fc.check(
    fc.property(nearSchema(tool.inputSchema), (value) => {
      const v = verdict(value);
      return v.zod.success === v.json.valid;
    }),
    { numRuns: options.numRuns ?? 200, ...(options.seed === undefined ? {} : { seed: options.seed }) },
  );
  if (!details.failed) return;
  if (details.counterexample === null) {
    throw new ConformanceError(
      "spec-parity",
      tool.name,
      `the check itself failed: ${messageOf(details.errorInstance)}`,
    );
  }
  const [value] = details.counterexample;
  const v = verdict(value);
  const because = v.zod.success
    ? `the published JSON Schema refuses it (${v.json.problems.join("; ")})`
    : `zod refuses it (${JSON.stringify(v.zod.error?.issues ?? [])})`;
  throw new ConformanceError(
    "spec-parity",
    tool.name,
    `zod ${v.zod.success ? "accepts" : "rejects"} but the published JSON Schema ${v.json.valid ? "accepts" : "rejects"} ${JSON.stringify(value)}: ${because}. A zod refinement or transform the JSON Schema cannot say makes clients and the host disagree; express the rule in the schema (.min/.max/.regex/enum). Replay with testSkill(register, { seed: ${details.seed} })`,
  );
}

async function abortCheck(tool: RegisteredTool, config: unknown, canary: string): Promise<void> {
  for (const args of argumentsFor(tool)) {
    const reason = new DOMException("testSkill aborted this call before it started", "AbortError");
    const ctx = mockContext({ config, signal: AbortSignal.abort(reason), token: canary });
    let outcome: { value: unknown } | { error: unknown };
    try {
      outcome = { value: await tool.run(structuredClone(args), ctx) };
    } catch (error) {
      outcome = { error };
    }
    if ("value" in outcome) {
      throw new ConformanceError(
        "abort",
        tool.name,
        `run resolved although ctx.signal was already aborted (arguments ${JSON.stringify(args)}); call ctx.signal.throwIfAborted() first and pass ctx.signal to every I/O`,
      );
    }
    const error = outcome.error;
    const respected =
      error === reason ||
      (error as { name?: unknown } | null)?.name === "AbortError" ||
      (isSkillError(error) && (error.code === "CANCELLED" || error.code === "TIMEOUT"));
    if (!respected) {
      throw new ConformanceError(
        "abort",
        tool.name,
        `with ctx.signal already aborted, run threw ${messageOf(error)} instead of the abort; call ctx.signal.throwIfAborted() before any work`,
      );
    }
  }
}

async function normalisedCheck(skill: RegisteredSkill, tool: RegisteredTool, canary: string): Promise<void> {
  const secret = `database at /srv/${canary}/secret.js refused the password`;
  // The same tool, same schemas, but its capability fails with a plain Error carrying a secret.
  const failing = (): RegisteredSkill => ({
    ...skill,
    configSchema: undefined,
    credentials: {},
    tools: [
      {
        ...tool,
        run: () => {
          throw new Error(secret);
        },
      },
    ],
  });
  // A dangerous tool runs only where the instance allows it; allowed, it goes through the host's confirmation.
  const allow = tool.risk === "dangerous" ? [tool.name] : [];
  const host = await createTestHost({ skills: [{ register: failing, allow }] });
  try {
    const name = host.host.registry.listings[0]?.name as string;
    for (const args of argumentsFor(tool)) {
      const envelope = tool.risk === "dangerous" ? await host.confirm(name, args) : await host.callTool(name, args);
      if (envelope.ok || envelope.error.code !== "INTERNAL") {
        throw new ConformanceError(
          "normalise",
          tool.name,
          `a capability throwing a plain Error answered ${JSON.stringify(envelope)} instead of INTERNAL`,
        );
      }
      if (JSON.stringify(envelope).includes(canary)) {
        throw new ConformanceError(
          "normalise",
          tool.name,
          `the INTERNAL answer shows the thrown message: ${envelope.message}`,
        );
      }
    }
  } finally {
    await host.close();
  }
}

async function canaryCheck(
  skill: RegisteredSkill,
  tool: RegisteredTool,
  config: unknown,
  canary: string,
): Promise<void> {
  const credentials = Object.fromEntries([...Object.keys(skill.credentials), "token"].map((name) => [name, canary]));
  for (const args of argumentsFor(tool)) {
    const ctx = mockContext({ config, token: canary, credentials });
    let shown: string;
    try {
      shown = JSON.stringify((await tool.run(structuredClone(args), ctx)) ?? null);
    } catch (error) {
      shown = `${messageOf(error)} ${isSkillError(error) ? (error.field ?? "") : ""}`;
    }
    const where = [
      shown.includes(canary) ? "its result" : undefined,
      JSON.stringify(ctx.logs).includes(canary) ? "its log" : undefined,
      JSON.stringify(ctx.progressCalls).includes(canary) ? "its progress messages" : undefined,
    ].filter((w) => w !== undefined);
    if (where.length > 0) {
      throw new ConformanceError(
        "canary",
        tool.name,
        `the credential given in ctx.token appears in ${where.join(" and ")} (arguments ${JSON.stringify(args)}); never echo a token, not even in an error`,
      );
    }
  }
}

/** The arguments the checks call with: the valid examples with defaults filled, else valid generated ones. */
function argumentsFor(tool: RegisteredTool): Record<string, unknown>[] {
  let check: (value: unknown) => SchemaCheck;
  try {
    check = compileSchema(tool.inputSchema);
  } catch {
    return [];
  }
  const valid = (values: unknown[]) =>
    values
      .map((v) => check(v))
      .filter((c) => c.valid && typeof c.value === "object" && c.value !== null)
      .map((c) => c.value as Record<string, unknown>);
  const examples = valid(Array.isArray(tool.examples) ? tool.examples : []);
  if (examples.length > 0) return examples;
  const generated = valid(fc.sample(nearSchema(tool.inputSchema), { numRuns: 300, seed: 42 })).slice(0, 3);
  if (generated.length > 0) return generated;
  throw new ConformanceError(
    "example-missing",
    tool.name,
    "no valid arguments to call the tool with: add a valid example under `examples`",
  );
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

// The checks of testSkill()'s suite, each on one tool: the spec lint, spec parity, and the runtime checks on the
// examples' runs (an already-aborted signal, a thrown non-SkillError, the canary credential, the output schema).
import { inspect } from "node:util";
import type { JsonSchema, RegisteredSkill, RegisteredTool } from "@skillport/core";
import { isSkillError, isToolResult } from "@skillport/core";
import type { SchemaCheck } from "@skillport/host/surface";
import { compileSchema } from "@skillport/host/surface";
import type { LintFinding } from "@skillport/tooling";
import { formatLintFinding } from "@skillport/tooling";
import fc from "fast-check";
import { ConformanceError } from "./conformance-error.js";
import { withoutIo } from "./io-guard.js";
import { messageOf } from "./message-of.js";
import type { MockContext } from "./mock-context.js";
import { mockContext } from "./mock-context.js";
import { nearSchema } from "./near-schema.js";
import { createTestHost } from "./test-host.js";

/** One example run with a canary credential: its arguments, what it answered, and its context. */
export interface ExampleRun {
  args: Record<string, unknown>;
  outcome: { value: unknown } | { error: unknown };
  ctx: MockContext;
}

/** Runs each example once, in order, with the canary as every credential. */
export async function runExamples(
  skill: RegisteredSkill,
  tool: RegisteredTool,
  config: unknown,
  canary: string,
): Promise<ExampleRun[]> {
  const credentials = Object.fromEntries([...Object.keys(skill.credentials), "token"].map((name) => [name, canary]));
  const runs: ExampleRun[] = [];
  for (const args of argumentsFor(tool)) {
    const ctx = mockContext({ config, token: canary, credentials });
    let outcome: ExampleRun["outcome"];
    try {
      outcome = { value: await tool.run(structuredClone(args), ctx) };
    } catch (error) {
      outcome = { error };
    }
    runs.push({ args, outcome, ctx });
  }
  return runs;
}

export function lintCheck(tool: RegisteredTool, findings: LintFinding[], strict: boolean): void {
  const own = findings.filter((f) => f.tool === tool.name && (f.severity === "error" || strict));
  if (own.length === 0) return;
  const first = own[0] as LintFinding;
  const lines = own.map((f) => `  - ${formatLintFinding(f)}`).join("\n");
  throw new ConformanceError(
    first.rule,
    tool.name,
    `breaks ${own.length === 1 ? "a spec lint rule" : `${own.length} spec lint rules`}:\n${lines}`,
  );
}

export function parityCheck(tool: RegisteredTool, options: { numRuns?: number; seed?: number }): void {
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
      `the check itself failed: ${nameAndMessage(details.errorInstance)}`,
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

export async function abortCheck(tool: RegisteredTool, config: unknown, canary: string): Promise<void> {
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
        `with ctx.signal already aborted, run threw ${nameAndMessage(error)} instead of the abort; call ctx.signal.throwIfAborted() before any work`,
      );
    }
  }
}

export async function normalisedCheck(
  skill: RegisteredSkill,
  tool: RegisteredTool,
  canary: string,
  logs: "silent" | "stderr",
): Promise<void> {
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
  const host = await createTestHost({ skills: [{ register: failing, allow }], logs });
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

export function canaryCheck(tool: RegisteredTool, runs: ExampleRun[], canary: string): void {
  for (const { args, outcome, ctx } of runs) {
    const shown =
      "value" in outcome
        ? shownValue(outcome.value)
        : `${nameAndMessage(outcome.error)} ${isSkillError(outcome.error) ? (outcome.error.field ?? "") : ""}`;
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

/**
 * The envelope's `data` of each example that answered, as a client receives it (JSON), against the tool's output
 * schema with the host's validator. An example that ended in an error has no data to check.
 */
export function outputCheck(tool: RegisteredTool, runs: ExampleRun[], skip: (reason: string) => void): void {
  let check: (value: unknown) => SchemaCheck;
  try {
    // Without its defaults: the host's validator fills them in, and so would pass data that lacks a required field
    // with a default, which a client checking structuredContent (filling nothing) refuses.
    check = compileSchema(withoutDefaults(tool.outputSchema) as JsonSchema);
  } catch (error) {
    throw new ConformanceError("output-valid", tool.name, `the output schema does not compile: ${messageOf(error)}`);
  }
  let checked = 0;
  const failed: string[] = [];
  for (const [index, { args, outcome }] of runs.entries()) {
    if (!("value" in outcome)) {
      failed.push(isSkillError(outcome.error) ? outcome.error.code : nameAndMessage(outcome.error));
      continue;
    }
    const label = `example ${index + 1} ${JSON.stringify(args)}`;
    const raw = isToolResult(outcome.value) ? outcome.value.data : outcome.value;
    let data: unknown;
    try {
      // What a client receives: the envelope as JSON, where `undefined` data is null.
      data = JSON.parse(JSON.stringify(raw === undefined ? null : raw) ?? "null");
    } catch (error) {
      throw new ConformanceError(
        "output-valid",
        tool.name,
        `${label} answered data that is not JSON (${nameAndMessage(error)}); return plain objects, arrays, strings, numbers, booleans and null`,
      );
    }
    const verdict = check(data);
    if (!verdict.valid) {
      throw new ConformanceError(
        "output-valid",
        tool.name,
        `${label} answered data that breaks the output schema: ${verdict.problems.join("; ")}. Clients check structuredContent against the advertised outputSchema (the v1 SDK client refuses the whole result), and the host answers INTERNAL; fix the capability or the output schema`,
      );
    }
    checked += 1;
  }
  if (checked === 0) {
    skip(
      `no example answered with data (${failed.join(", ")}), so the output schema was not checked: add an example that succeeds with the config or setup() given to testSkill`,
    );
  }
}

/** Keywords whose value maps names to schemas: a key "default" there is a property's name, not a keyword. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);
/** Keywords whose value is data, not a schema. */
const DATA_KEYWORDS = new Set(["const", "enum", "examples", "default"]);

/** A copy of a JSON Schema with every `default` keyword removed. */
function withoutDefaults(node: unknown, isMap = false): unknown {
  if (Array.isArray(node)) return node.map((item) => withoutDefaults(item));
  if (typeof node !== "object" || node === null) return node;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (isMap) copy[key] = withoutDefaults(value);
    else if (key === "default") continue;
    else if (DATA_KEYWORDS.has(key)) copy[key] = value;
    else copy[key] = withoutDefaults(value, SCHEMA_MAPS.has(key));
  }
  return copy;
}

/** The skill with each buildBrief run under the I/O trap: a brief that does I/O throws, naming what it called. */
export function withBriefsWithoutIo(skill: RegisteredSkill): RegisteredSkill {
  const tools = skill.tools.map((tool): RegisteredTool => {
    const brief = tool.buildBrief;
    if (brief === undefined) return tool;
    const guarded = (params: Record<string, unknown>): string => {
      const run = withoutIo(() => brief(params));
      if (run.io.length > 0) throw new Error(`it called ${run.io.join(", ")}, and a buildBrief must do no I/O`);
      if ("error" in run) throw run.error;
      return run.value as string;
    };
    return { ...tool, buildBrief: guarded };
  });
  return { ...skill, tools };
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

/** A value as text to search: its JSON, or for what JSON cannot say (a BigInt, a cycle) Node's inspection. */
function shownValue(value: unknown): string {
  try {
    return JSON.stringify(value ?? null);
  } catch {
    return inspect(value, { depth: null, maxArrayLength: null, maxStringLength: null });
  }
}

function nameAndMessage(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

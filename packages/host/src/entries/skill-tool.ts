import type { RegisteredSkill, RegisteredTool, Risk } from "@skillport/core";
import type { Logger } from "../logging/logger.js";
import type { CapabilityTarget } from "./capability.js";
import { capabilityOf, describeTarget } from "./capability.js";
import { fetchWithCredentials, hasCredential, lazyHeldCredentials, skillCredentials } from "./credential-fetch.js";
import { spawnProcess } from "./isolated/process-pool.js";
import { spawnThread, WorkerPool } from "./isolated/worker-pool.js";
import type { InstanceParts } from "./skill-context.js";
import { createSkillContext } from "./skill-context.js";
import type { SkillInstance } from "./skill-instance.js";
import type { RunCall, Runnable, ToolEntry, ToolListing } from "./tool-entry.js";
import type { UriMount } from "./uri-template.js";

/** What a skill tool's entry is made of, besides its instance. */
export interface SkillToolInit {
  fullName: string;
  toolName: string;
  listing: ToolListing;
  risk: Risk;
  scopes: readonly string[];
  timeoutMs: number;
  mount: UriMount;
}

/**
 * The isolates of a registry's instances: one pool of worker threads or child processes per isolated instance,
 * started on its first call, stopped together.
 */
export interface Isolates {
  poolOf(instance: SkillInstance, skill: RegisteredSkill): WorkerPool;
  close(): Promise<void>;
}

/** Creates the registry's isolates; they log what goes wrong in them with `logger`. */
export function createIsolates(logger: Logger): Isolates {
  const pools = new Map<SkillInstance, WorkerPool>();
  return {
    poolOf(instance, skill) {
      let pool = pools.get(instance);
      if (pool === undefined) {
        pool =
          instance.isolation === "process"
            ? new WorkerPool(instance, skill, logger, spawnProcess, "child process")
            : new WorkerPool(instance, skill, logger, spawnThread, "worker");
        pools.set(instance, pool);
      }
      return pool;
    },
    async close() {
      await Promise.all([...pools.values()].map((pool) => pool.close()));
    },
  };
}

/**
 * A skill's tool as a table entry. Its runnable comes from the instance's loaded skill (imported on the first
 * call when the host started from the lock) and runs in this process, or in the instance's isolates.
 */
export function skillToolEntry(instance: SkillInstance, init: SkillToolInit, isolates: Isolates): ToolEntry {
  return new SkillToolEntry(instance, init, isolates);
}

/**
 * A class, not an object literal: a registry makes one per tool at start-up (2,000 at 200 skills), and a literal
 * spreading its init and closing over a promise of its own cost about twice as much to make.
 */
class SkillToolEntry implements ToolEntry {
  readonly fullName: string;
  readonly toolName: string;
  readonly listing: ToolListing;
  readonly risk: Risk;
  readonly scopes: readonly string[];
  readonly timeoutMs: number;
  readonly mount: UriMount;
  resolved: Runnable | undefined = undefined;
  #runnable: Promise<Runnable> | undefined = undefined;

  constructor(
    readonly instance: SkillInstance,
    init: SkillToolInit,
    private readonly isolates: Isolates,
  ) {
    this.fullName = init.fullName;
    this.toolName = init.toolName;
    this.listing = init.listing;
    this.risk = init.risk;
    this.scopes = init.scopes;
    this.timeoutMs = init.timeoutMs;
    this.mount = init.mount;
  }

  resolve(): Promise<Runnable> {
    this.#runnable ??= this.instance.load().then((skill) => this.runnableOf(skill));
    return this.#runnable;
  }

  private runnableOf(skill: RegisteredSkill): Runnable {
    const { instance, toolName } = this;
    const tool = skill.tools.find((t) => t.name === toolName);
    if (tool === undefined) throw new Error(`${instance.id} no longer has the tool "${toolName}"; run skillport lock`);
    if (instance.isolation === "in-process") {
      // The tool found once, not on every call as a capability by name is.
      const parts = instancePartsOf(instance, skill);
      this.resolved = runnableOf(tool, (args, call) => promised(tool.run(args, createSkillContext(call, parts(call)))));
    } else {
      const invoke = invokerOf(instance, skill, this.isolates);
      const target: CapabilityTarget = { kind: "tool", name: tool.name };
      this.resolved = runnableOf(tool, (args, call) => invoke(target, args, call));
    }
    return this.resolved;
  }
}

/** Runs one of a loaded skill's capabilities with a call's ctx: in this process, or in the instance's isolates. */
export type Invoke = (target: CapabilityTarget, params: Record<string, unknown>, call: RunCall) => Promise<unknown>;

/** How the capabilities of an instance's loaded skill run, wherever its isolation puts them. */
export function invokerOf(instance: SkillInstance, skill: RegisteredSkill, isolates: Isolates): Invoke {
  const parts = instancePartsOf(instance, skill);
  if (instance.isolation === "in-process") {
    return async (target, params, call) => {
      const capability = capabilityOf(skill, target);
      if (capability === undefined) throw new Error(`${instance.id} has no ${describeTarget(target)}`);
      return capability(params, createSkillContext(call, parts(call)));
    };
  }
  return (target, params, call) =>
    isolates
      .poolOf(instance, skill)
      .run(target, params, createSkillContext(call, parts(call)), call.input, call.credentials !== undefined);
}

// --- internal ---

/**
 * A capability's answer as a promise: its own when it made one (an async capability), else one made here. Not an
 * async wrapper: that adds a promise of its own and, resolved with the capability's, two more turns and one more
 * promise every call. A capability that throws at once throws to the bounded run, which answers it as a rejection.
 */
function promised(value: unknown): Promise<unknown> {
  return value instanceof Promise ? value : Promise.resolve(value);
}

/** What a loaded instance gives every call's ctx: config, the credentials its skill reads, and the host's fetch. */
function instancePartsOf(instance: SkillInstance, skill: RegisteredSkill): (call: RunCall) => InstanceParts {
  const credentials = skillCredentials(skill, instance.credentials);
  const held = lazyHeldCredentials(skill, instance.credentials, instance.config);
  return (call) => {
    // A caller's own credentials (per-caller slots, resolved for this call) stand in for the instance's fallbacks.
    const own = call.credentials === undefined ? undefined : { ...instance.credentials, ...call.credentials };
    return {
      config: instance.config,
      credentials: own === undefined ? credentials : skillCredentials(skill, own),
      hasCredential: (name) => hasCredential(own ?? instance.credentials, name),
      fetch: fetchWithCredentials(
        own === undefined ? held : lazyHeldCredentials(skill, own, instance.config),
        () => call.signal,
        (input, init) => fetch(input, init),
      ),
    };
  };
}

function runnableOf(
  tool: RegisteredTool,
  execute: (args: Record<string, unknown>, call: RunCall) => Promise<unknown>,
): Runnable {
  return {
    risk: tool.risk,
    title: tool.title,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema,
    legacy: tool.legacy.map((shape, index) => ({
      schema: tool.legacySchemas[index] ?? {},
      migrate: shape.migrate,
      note: shape.note,
    })),
    brief(args) {
      try {
        const brief: unknown = tool.buildBrief?.(args);
        return typeof brief === "string" ? brief : undefined;
      } catch {
        return undefined; // a brief is a courtesy; a throwing one never fails the call
      }
    },
    run: execute,
  };
}

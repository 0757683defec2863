import { devNull } from "node:os";
import path from "node:path";
import type {
  CompleteResult,
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplateType,
  Tool,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/client";
import type { Envelope, RegisterSkill } from "@skillport/core";
import type { Host, LoadedManifest, Logger, Separator, SkillModule } from "@skillport/host";
import { createHost, createLogger, loadManifest, parseManifest } from "@skillport/host";
import { connectInMemory } from "@skillport/host/testing";

/** One skill for {@link createTestHost}: its `register`, alone or with the manifest fields of its instance. */
export type TestSkill =
  | RegisterSkill
  | {
      register: RegisterSkill;
      /** The instance id and tool prefix. @default the skill's name */
      mcp?: string;
      /** The instance config, as written in a manifest (relative paths resolve against `dir`). */
      config?: Record<string, unknown>;
      /** Serve only these tools, or all but these. */
      tools?: { include?: string[]; exclude?: string[] };
      /** Serve only these resources and templates, or all but these. */
      resources?: { include?: string[]; exclude?: string[] };
      /** Serve only these prompts, or all but these. */
      prompts?: { include?: string[]; exclude?: string[] };
      /** The skill's package folder: its SKILL.md is served through the Skills extension. */
      dir?: string;
      /**
       * Where each declared credential comes from, as in a manifest (read when the host starts).
       * @example { token: { env: "TEST_GITHUB_TOKEN" } }
       */
      credentials?: Record<string, { env: string } | { file: string }>;
      /** Dangerous tools this instance may run, after confirmation (see {@link TestHost.confirm}). */
      allow?: string[];
      /** The package name messages use. @default `skill-<name>` */
      package?: string;
    };

/** Options for {@link createTestHost}: give `skills` or `manifest`. */
export interface TestHostOptions {
  /** Skills in memory, each becoming one manifest entry; no package install and no files needed. */
  skills?: readonly TestSkill[];
  /** A manifest file, or one from parseManifest()/loadManifest(), served as `skillport serve` would. */
  manifest?: string | LoadedManifest;
  /** @default "." */
  separator?: Separator;
  /**
   * Where relative config paths of `skills` resolve from.
   * @default process.cwd()
   */
  dir?: string;
  /** Where the host logs; wins over `logs` for log lines. @default per `logs` */
  logger?: Logger;
  /**
   * Where the host's log and audit lines go. `"silent"` drops them, so a passing test prints nothing; `"stderr"`
   * writes them as `skillport serve` would (JSON lines on stderr), to watch a failing test. A manifest that names an
   * `audit.file` keeps writing its audit there either way.
   * @default "silent"
   * @example await createTestHost({ skills: [register], logs: "stderr" })
   */
  logs?: "silent" | "stderr";
}

/** Options for one call. */
export interface TestCallOptions {
  signal?: AbortSignal;
  /** @default the SDK's 60 s */
  timeout?: number;
  /** Receives the tool's `ctx.progress` reports. */
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
}

/** A host in this process with an MCP SDK client connected to it over an in-memory transport. */
export interface TestHost {
  host: Host;
  /** The connected SDK client, for anything the helpers do not cover. */
  client: Client;
  /** tools/list, every page. */
  listTools(): Promise<Tool[]>;
  /**
   * tools/call, answering the envelope (`structuredContent`). A failing tool answers `{ ok: false, error }`; an
   * unknown tool rejects with the JSON-RPC error, as it would for a real client.
   */
  callTool<T = unknown>(name: string, args?: Record<string, unknown>, options?: TestCallOptions): Promise<Envelope<T>>;
  /**
   * Calls a `dangerous` tool and accepts the host's confirmation question, as a user would: the host asks through
   * the client (MCP elicitation) and the test client answers yes, for this call only. A plain `callTool` on a
   * dangerous tool is answered no, so it ends PERMISSION_DENIED without running. The questions asked so far are in
   * {@link TestHost.questions}.
   */
  confirm<T = unknown>(name: string, args?: Record<string, unknown>, options?: TestCallOptions): Promise<Envelope<T>>;
  /** Every confirmation question the host asked the test client, in order (`echo.wipe wants to: … Allow it?`). */
  readonly questions: readonly string[];
  /** resources/list: fixed resources, those the templates list, and SKILL.md files. */
  listResources(): Promise<Resource[]>;
  listResourceTemplates(): Promise<ResourceTemplateType[]>;
  /** resources/read; a URI the server does not serve, or arguments it refuses, reject with the JSON-RPC error. */
  readResource(uri: string): Promise<ReadResourceResult>;
  listPrompts(): Promise<Prompt[]>;
  /** prompts/get; unknown prompts and refused arguments reject with the JSON-RPC error. */
  getPrompt(name: string, args?: Record<string, string>): Promise<GetPromptResult>;
  /** completion/complete for a prompt argument (`{ prompt }`) or a template variable (`{ uriTemplate }`). */
  complete(
    ref: { prompt: string } | { uriTemplate: string },
    argument: { name: string; value: string },
    context?: Record<string, string>,
  ): Promise<CompleteResult["completion"]>;
  /** Closes the client and the server. */
  close(): Promise<void>;
}

/**
 * Builds a host in process, from skills in memory or from a manifest, and connects an SDK client to it: a test
 * goes through the whole pipeline (tools/list, validation, the envelope, the SDK's output-schema check) with no
 * socket, no child process and no install.
 *
 * @example
 * const t = await createTestHost({ skills: [{ register, config: { vault: "./examples/vault" } }] });
 * const envelope = await t.callTool("notes.search_notes", { keyword: "agent" });
 * await t.close();
 */
export async function createTestHost(options: TestHostOptions): Promise<TestHost> {
  if ((options.skills === undefined) === (options.manifest === undefined)) {
    throw new Error("[skillport-testing] createTestHost: give exactly one of `skills` or `manifest`");
  }
  const { manifest, modules } =
    options.skills === undefined
      ? { manifest: options.manifest, modules: {} }
      : inMemoryManifest(options.skills, options.separator ?? ".", options.dir ?? process.cwd());
  const loud = options.logs === "stderr";
  const loaded = typeof manifest === "object" ? manifest : await loadManifest(manifest);
  const host = await createHost({
    // The audit goes where the manifest says: stderr unless it names a file. Silent, stderr becomes the null device.
    manifest:
      loud || loaded.audit.file !== undefined ? loaded : { ...loaded, audit: { ...loaded.audit, file: devNull } },
    modules,
    logger: options.logger ?? (loud ? createLogger() : createLogger({ level: "silent" })),
  });
  // The client can ask its user: confirm() says yes for its own call, anything else is answered no.
  const client = new Client(
    { name: "skillport-testing", version: "0.0.0" },
    { capabilities: { elicitation: { form: {} } } },
  );
  const questions: string[] = [];
  let approvals = 0;
  client.setRequestHandler("elicitation/create", async (request) => {
    questions.push(String((request.params as { message?: unknown }).message));
    if (approvals === 0) return { action: "decline" };
    approvals -= 1;
    return { action: "accept", content: { confirm: true } };
  });
  await client.connect(await connectInMemory(host));

  const callTool = async <T>(name: string, args: Record<string, unknown> = {}, call: TestCallOptions = {}) => {
    const result = await client.callTool(
      { name, arguments: args },
      {
        ...(call.signal === undefined ? {} : { signal: call.signal }),
        ...(call.timeout === undefined ? {} : { timeout: call.timeout }),
        ...(call.onProgress === undefined ? {} : { onprogress: call.onProgress }),
      },
    );
    const envelope = result.structuredContent as Envelope<T> | undefined;
    if (envelope === undefined) {
      throw new Error(`[skillport-testing] ${name} answered without structuredContent: ${JSON.stringify(result)}`);
    }
    return envelope;
  };
  return {
    host,
    client,
    async listTools() {
      return (await client.listTools()).tools;
    },
    callTool,
    async confirm(name, args = {}, call = {}) {
      approvals += 1;
      const asked = questions.length;
      try {
        return await callTool(name, args, call);
      } finally {
        if (questions.length === asked) approvals -= 1; // not asked (not dangerous, or refused before): no approval left over
      }
    },
    questions,
    async listResources() {
      return (await client.listResources()).resources;
    },
    async listResourceTemplates() {
      return (await client.listResourceTemplates()).resourceTemplates;
    },
    readResource: (uri) => client.readResource({ uri }),
    async listPrompts() {
      return (await client.listPrompts()).prompts;
    },
    getPrompt: (name, args = {}) => client.getPrompt({ name, arguments: args }),
    async complete(ref, argument, context) {
      const result = await client.complete({
        ref:
          "prompt" in ref ? { type: "ref/prompt", name: ref.prompt } : { type: "ref/resource", uri: ref.uriTemplate },
        argument,
        ...(context === undefined ? {} : { context: { arguments: context } }),
      });
      return result.completion;
    },
    close: () => client.close(),
  };
}

/**
 * The operation-id round trip over any call function, for hosts whose manifest sets `confirmation.fallback` to
 * "operation-id": call; on CONFIRMATION_REQUIRED with an operation id, call again with `_confirm` set to it.
 */
export async function confirmCall<T>(
  call: (args: Record<string, unknown>) => Promise<Envelope<T>>,
  name: string,
  args: Record<string, unknown>,
): Promise<Envelope<T>> {
  const first = await call(args);
  if (first.ok || first.error.code !== "CONFIRMATION_REQUIRED") return first;
  const operationId = (first.error as { operationId?: unknown }).operationId;
  if (typeof operationId !== "string" || operationId === "") {
    throw new Error(
      `[skillport-testing] ${name} answered CONFIRMATION_REQUIRED without error.operationId, so the call cannot be confirmed by id (the manifest's confirmation.fallback is not "operation-id"): ${first.message}`,
    );
  }
  return call({ ...args, _confirm: operationId });
}

// --- internal ---

function inMemoryManifest(
  skills: readonly TestSkill[],
  separator: Separator,
  dir: string,
): { manifest: LoadedManifest; modules: Record<string, SkillModule> } {
  const modules: Record<string, SkillModule> = {};
  const entries = skills.map((item, index) => {
    const spec = typeof item === "function" ? { register: item } : item;
    let name = spec.package ?? `skill-${packageSafe(spec.register().name)}`;
    const taken = modules[name];
    if (taken !== undefined && taken.register !== spec.register) name = `${name}-${index}`;
    modules[name] = { register: spec.register, ...(spec.dir === undefined ? {} : { dir: spec.dir }) };
    return {
      package: name,
      ...(spec.mcp === undefined ? {} : { mcp: spec.mcp }),
      ...(spec.config === undefined ? {} : { config: spec.config }),
      ...(spec.tools === undefined ? {} : { tools: spec.tools }),
      ...(spec.resources === undefined ? {} : { resources: spec.resources }),
      ...(spec.prompts === undefined ? {} : { prompts: spec.prompts }),
      ...(spec.credentials === undefined ? {} : { credentials: spec.credentials }),
      ...(spec.allow === undefined ? {} : { allow: spec.allow }),
    };
  });
  const json = { name: "skillport-test", version: "0.0.0", separator, skills: entries };
  return { manifest: parseManifest(json, path.join(dir, "skills.manifest.json")), modules };
}

function packageSafe(name: string): string {
  const safe = name
    .toLowerCase()
    .replace(/[^a-z0-9._~-]+/g, "-")
    .replace(/^[^a-z0-9]+/, "");
  return safe === "" ? "skill" : safe;
}

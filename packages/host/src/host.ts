import path from "node:path";
import type { CallerSlot } from "./credentials/caller-slot.js";
import type { HostCredentials } from "./credentials/open-credentials.js";
import { openCredentials } from "./credentials/open-credentials.js";
import type { UpstreamClient } from "./entries/upstream-client.js";
import { cannotStart, HostError } from "./errors/host-error.js";
import type { Logger } from "./logging/logger.js";
import { createLogger, redactingLogger } from "./logging/logger.js";
import type { ManifestReading } from "./manifest/load-manifest.js";
import { manifestError, readManifest } from "./manifest/load-manifest.js";
import type { LoadedManifest } from "./manifest/manifest.js";
import { readSecret } from "./manifest/read-secret.js";
import type { Audit } from "./pipeline/audit.js";
import { createAudit } from "./pipeline/audit.js";
import { createBoundedRun } from "./pipeline/bounded-run.js";
import { createConfirmations, MIN_CONFIRMATION_SECRET_BYTES } from "./pipeline/confirmations.js";
import type { Pipeline } from "./pipeline/pipeline.js";
import { createPipeline } from "./pipeline/pipeline.js";
import type { Requests } from "./pipeline/requests.js";
import { createRequests } from "./pipeline/requests.js";
import { createValidators } from "./pipeline/validators.js";
import type { Redactor } from "./redaction/redactor.js";
import { createRedactor } from "./redaction/redactor.js";
import type { BuildRegistryOptions } from "./registry/build-registry.js";
import { buildRegistry } from "./registry/build-registry.js";
import { lockCommand, lockPathOf, readLock, requireLock } from "./registry/lock.js";
import type { Registry } from "./registry/registry.js";
import type { SkillModule } from "./registry/skill-instances.js";
import { lazyAjv } from "./schema/ajv.js";
import { openStores } from "./state/open-store.js";
import { createMemorySealedStore } from "./state/sealed-store.js";
import type { SharedState } from "./state/shared-state.js";
import { createSharedState } from "./state/shared-state.js";
import type { StateStore } from "./state/store.js";
import type { TaskLeases } from "./state/task-leases.js";
import { createTaskLeases } from "./state/task-leases.js";
import type { TaskStore } from "./state/task-store.js";
import type { TracingOptions } from "./tracing/otel-tracing.js";
import { loadTracing } from "./tracing/otel-tracing.js";
import type { Tracing } from "./tracing/tracing.js";

/** Options for {@link createHost}. */
export interface HostOptions {
  /**
   * A manifest file, or one already loaded with loadManifest().
   * @default "skills.manifest.json" in the current folder
   */
  manifest?: string | LoadedManifest;
  /**
   * Where the host logs. Whichever logger, every line passes through the host's redactor (see {@link Host.redactor}).
   * Its level also decides whether audit lines go to stderr (from "info"); the manifest's `audit.file` gets them all.
   * @default JSON lines on stderr
   */
  logger?: Logger;
  /**
   * Skill modules already imported, by package name: a manifest entry whose `package` is listed here uses the
   * module instead of importing the package. For tests (`@skillport/testing`) and for embedding a host.
   * @default {}
   */
  modules?: Readonly<Record<string, SkillModule>>;
  /**
   * Whether to start from the manifest's lock (`skills.lock.json` beside `skills.manifest.json`; see lockPathOf in
   * `@skillport/host/surface`): "auto" uses a current lock and warns about a stale one (then imports
   * every skill now); "frozen" refuses to start without a current lock (CI, production); "off" imports every skill.
   * With a current lock tools/list needs no skill import; each skill is imported on its first call.
   * @default "off"
   */
  lock?: "auto" | "frozen" | "off";
  /**
   * Where replicas share rate limits, one-time confirmations and readiness. The host closes it on `close()`.
   * @default the manifest's `state` (or SKILLPORT_STATE_URL): a store in this process unless Redis is configured
   */
  state?: StateStore;
  /**
   * Where tasks (the MCP Tasks extension) keep their state: status, result or error, open questions, expiry. The
   * host closes it on `close()`.
   * @default beside the shared state (the manifest's `state` or SKILLPORT_STATE_URL): in this process, or in Redis
   */
  tasks?: TaskStore;
  /**
   * How to reach the manifest's upstream MCP servers (`servers`): a function that imports `@skillport/client/node`,
   * called only when the manifest has enabled servers. A manifest with enabled servers does not start without it.
   * @default undefined
   * @example
   * const host = await createHost({ manifest: "./skills.manifest.json", client: () => import("@skillport/client/node") });
   */
  client?: UpstreamClient;
  /**
   * OpenTelemetry traces: spans for each MCP request and pipeline stage, the policy decisions as their events,
   * exported by the OpenTelemetry SDK as the `OTEL_*` environment variables configure it, and off unless they do
   * (see docs/observability.md). `false` turns tracing off whatever the environment says; span processors given
   * here (an in-memory exporter in a test) turn it on.
   * @default {} (the environment decides)
   */
  tracing?: false | Pick<TracingOptions, "env" | "spanProcessors">;
  /**
   * Whether the table may be swapped while it is served ({@link Host.reload}, what `skillport dev` does): servers
   * then declare `listChanged` for tools, resources and prompts, and tell their connected clients when it changes.
   * @default false
   */
  reloadable?: boolean;
  /**
   * The URL a skill's entry module is imported from, given the URL Node resolved and the package's folder.
   * `skillport dev` adds a query to a rebuilt skill's, so that Node's module cache imports it anew.
   * @default the resolved URL
   * @example (url, dir) => (dir === rebuilt ? `${url}?v=2` : url)
   */
  importUrl?: (entryUrl: string, packageDir: string) => string;
}

/** A swap of the host's table ({@link Host.reload}): the table that served until now, and the one that serves now. */
export interface HostSwap {
  readonly previous: Registry;
  readonly current: Registry;
}

/**
 * A manifest turned into a tool table and a call pipeline; transports serve it. `manifest`, `registry`, `pipeline`
 * and `requests` are the table in place: read them when a request comes, since {@link Host.reload} may swap them.
 */
export interface Host {
  readonly manifest: LoadedManifest;
  readonly registry: Registry;
  /** Tool calls. */
  readonly pipeline: Pipeline;
  /** Resource reads, prompt renders, completions and resource listings, bounded and checked like tool calls. */
  readonly requests: Requests;
  logger: Logger;
  /**
   * Knows every secret the host read; whatever leaves the host passes through it, every line of `logger`
   * included. Add a secret the host should hide but did not read itself (e.g. an HTTP token) with `add`.
   */
  redactor: Redactor;
  /**
   * What replicas share (rate limits, one-time confirmations, the ready replicas), with the host's failure
   * behaviour: while the store cannot be reached, dangerous tools refuse and rate limits count per replica.
   */
  state: SharedState;
  /** Where tasks keep their state (see HostOptions.tasks and docs/tasks.md). */
  tasks: TaskStore;
  /**
   * The leases of the tasks this replica runs (renewed while they run) and the sweep that ends the tasks of replicas
   * that stopped, by the manifest's `tasks.leaseMs` as the host started.
   */
  taskLeases: TaskLeases;
  /**
   * The host's tracer, when traces are on (see HostOptions.tracing); undefined costs a call nothing. `close()` shuts
   * it down, exporting the spans not sent yet.
   */
  tracing: Tracing | undefined;
  /** Per-caller credentials (the manifest's `credentials`): undefined when it has none. */
  credentials: HostCredentials | undefined;
  /** Whether the table may be swapped while served (HostOptions.reloadable): servers then declare `listChanged`. */
  readonly reloadable: boolean;
  /**
   * Reads the manifest again, imports its skills (never from the lock) and swaps the new table in: requests that
   * come after it see the new tools, calls already running finish on the table they started with, which is closed
   * once they have. Rejects with a HostError, the table in place still serving, when the manifest or a skill has a
   * problem, or a skill the table in place serves can no longer be imported.
   */
  reload(): Promise<HostSwap>;
  /** Calls `listener` after each swap; returns the function that unsubscribes. */
  onSwap(listener: (swap: HostSwap) => void): () => void;
  /** Stops isolation workers and lets go of the state store; serving transports call it on shutdown. */
  close(): Promise<void>;
}

/**
 * Loads the manifest and its skills and builds the host. Throws a HostError listing every problem at once (invalid
 * manifest, unknown package, invalid config, name conflict, confirmation secret) when it cannot start.
 *
 * @example
 * const host = await createHost({ manifest: "./skills.manifest.json" });
 * const outcome = await host.pipeline.call("notes.search_notes", { keyword: "agent" });
 */
export async function createHost(options: HostOptions = {}): Promise<Host> {
  const reading: ManifestReading =
    typeof options.manifest === "object"
      ? { file: options.manifest.file, manifest: options.manifest, problems: [] }
      : await readManifest(options.manifest);
  // Every problem is reported at once: the manifest's own, then its skills', then its secrets'.
  const failures: HostError[] = [];
  if (reading.problems.length > 0) failures.push(manifestError(reading.file, reading.problems));
  const manifest = reading.manifest;
  if (manifest === undefined) throw startupError(reading.file, failures);
  // The redactor comes first, so that no line the host logs can skip it; it learns each secret as it is read.
  const redactor = createRedactor();
  const logger = options.logger === undefined ? createLogger({ redactor }) : redactingLogger(options.logger, redactor);
  const registry = await registryOf(manifest, options, failures, logger);
  const secret = await collected(failures, () => confirmationSecret(manifest));
  if (registry === undefined || failures.length > 0) {
    await registry?.close();
    throw startupError(reading.file, failures);
  }
  learnSecrets(registry, redactor, logger);
  redactor.add([secret]);
  // Audit lines on stderr are info lines like the log's: a level above info (SKILLPORT_LOG_LEVEL=warn, a silent
  // logger) drops them. An audit.file is always written: whoever names one asked for every line.
  const audit =
    manifest.audit.file === undefined && !logger.isLevelEnabled("info")
      ? undefined
      : createAudit(manifest.audit, redactor);
  const opened =
    options.state === undefined || options.tasks === undefined
      ? await openStores(manifest, { redactor, logger })
      : undefined;
  const store = options.state ?? (opened as NonNullable<typeof opened>).state;
  const tasks = options.tasks ?? (opened as NonNullable<typeof opened>).tasks;
  // A store given in the options replaces the one opened beside it.
  if (options.state !== undefined) await opened?.state.close();
  if (options.tasks !== undefined) await opened?.tasks.close();
  const state = createSharedState({ store, logger });
  // The table in place, for the credentials' slots (the table itself is made below, with the pipeline).
  const inPlace = { registry };
  const credentials = await collected(failures, () =>
    openCredentials(manifest, {
      state: store,
      sealed: opened?.sealed ?? createMemorySealedStore(),
      redactor,
      slots: () => slotsOf(inPlace.registry),
    }),
  );
  if (failures.length > 0) {
    await Promise.all([registry.close(), opened?.state.close(), opened?.tasks.close(), opened?.sealed.close()]);
    throw startupError(reading.file, failures);
  }
  const taskLeases = createTaskLeases({ store: tasks, logger, leaseMs: manifest.tasks.leaseMs });
  const confirmations = createConfirmations({ secret, ttlSeconds: manifest.confirmation.ttlSeconds, store: state });
  // One bounded runner for tool calls and for reads, renders and completions: one concurrency limit per instance.
  const run = createBoundedRun({ logger, redactor });
  const auditLine: Audit = audit ?? (() => undefined);
  const tracing =
    options.tracing === false
      ? undefined
      : await loadTracing({
          ...options.tracing,
          redactor,
          logger,
          serviceName: manifest.name,
          serviceVersion: manifest.version,
        });
  // The table: what a reload builds anew. Everything else (the redactor, the state, the audit, the limits) stays.
  const tableOf = (manifest: LoadedManifest, registry: Registry): Table => ({
    manifest,
    registry,
    pipeline: createPipeline(registry, {
      logger,
      redactor,
      audit: auditLine,
      confirmations,
      confirmationFallback: manifest.confirmation.fallback,
      run,
      names: { discovery: manifest.discovery, separator: manifest.separator },
      traced: tracing !== undefined,
      ...(credentials === undefined ? {} : { credentials: credentials.resolver }),
    }),
    requests: createRequests(registry, { logger, redactor, audit: auditLine, confirmations, validators, run }),
  });
  const validators = createValidators(
    lazyAjv({ firstError: true }),
    lazyAjv({ firstError: true, fillDefaults: false }),
  );
  let table = tableOf(manifest, registry);
  const listeners = new Set<(swap: HostSwap) => void>();
  // Reloads run one at a time: a swap always replaces the table the reload started from.
  let reloading: Promise<unknown> = Promise.resolve();
  const reload = (): Promise<HostSwap> => {
    const next = reloading.then(async () => {
      const read = await readManifest(table.manifest.file);
      if (read.manifest === undefined || read.problems.length > 0) throw manifestError(read.file, read.problems);
      const fresh = await buildRegistry(read.manifest, registryOptions(options, logger));
      // A skill the table in place serves that can no longer be imported (a syntax error) keeps the table in place.
      const served = new Set(table.registry.failures.map((f) => f.source));
      const lost = fresh.failures.filter((f) => !served.has(f.source));
      if (lost.length > 0) {
        await fresh.close();
        throw new HostError(
          "SKILL_INVALID",
          `[skillport] ${lost.length === 1 ? "a skill" : `${lost.length} skills`} could not be loaded:`,
          lost.map((f) => f.message),
        );
      }
      learnSecrets(fresh, redactor, logger);
      const previous = table;
      table = tableOf(read.manifest, fresh);
      inPlace.registry = fresh;
      // The calls that started on the previous table finish on it; then its isolates and servers stop.
      void previous.pipeline.settled().then(() => previous.registry.close());
      const swap: HostSwap = { previous: previous.registry, current: fresh };
      for (const listener of listeners) listener(swap);
      return swap;
    });
    reloading = next.catch(() => undefined);
    return next;
  };
  const close = async () => {
    await reloading;
    taskLeases.close();
    await Promise.all([table.registry.close(), state.close(), tasks.close(), credentials?.close()]);
    // Every audit line is on disk (or stderr), and every span exported, before close resolves: a caller may exit.
    audit?.close();
    await tracing?.shutdown();
  };
  return {
    get manifest() {
      return table.manifest;
    },
    get registry() {
      return table.registry;
    },
    get pipeline() {
      return table.pipeline;
    },
    get requests() {
      return table.requests;
    },
    logger,
    redactor,
    state,
    tasks,
    taskLeases,
    tracing,
    credentials,
    reloadable: options.reloadable === true,
    reload,
    onSwap(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close,
  };
}

// --- internal ---

/** What a reload swaps: the manifest as read, its registry, and the pipeline and requests over it. */
interface Table {
  manifest: LoadedManifest;
  registry: Registry;
  pipeline: Pipeline;
  requests: Requests;
}

/** The redactor learns every credential of a new table; a short one is warned about, and a skill that failed said. */
function learnSecrets(registry: Registry, redactor: Redactor, logger: Logger): void {
  for (const instance of registry.instances) {
    redactor.add(Object.values(instance.credentials));
    for (const [name, value] of Object.entries(instance.credentials)) {
      if (value !== undefined && value.length < SHORT_SECRET) {
        logger.warn(
          { instance: instance.id, credential: name },
          `credential "${name}" has fewer than ${SHORT_SECRET} characters, so redaction finds it only whole and unencoded; use a longer secret`,
        );
      }
    }
  }
  // What a server entry read from the environment for its env, headers and URL never leaves the host.
  for (const server of registry.servers) redactor.add(server.secrets);
  for (const failure of registry.failures) {
    logger.error(
      { instance: failure.source },
      `a skill could not be loaded and its tools are not served: ${failure.message}`,
    );
  }
}

/** Every per-caller slot of a table: its skill instances' and its servers'. */
function slotsOf(registry: Registry): CallerSlot[] {
  return [...registry.instances.flatMap((i) => i.perCaller), ...registry.servers.flatMap((s) => s.perCaller)];
}

/** What every registry of a host is built with, but the lock. */
function registryOptions(options: HostOptions, logger: Logger): BuildRegistryOptions {
  return {
    modules: options.modules ?? {},
    logger,
    ...(options.client === undefined ? {} : { client: options.client }),
    ...(options.importUrl === undefined ? {} : { importUrl: options.importUrl }),
  };
}

/**
 * The tool table, or undefined when it could not be built (its error joins `failures`). A manifest with problems of
 * its own cannot start: its other skills are still loaded, never from the lock, to find their problems too. With
 * --frozen-lock nothing is imported before the lock matches, so there they wait until the manifest is fixed.
 */
async function registryOf(
  manifest: LoadedManifest,
  options: HostOptions,
  failures: HostError[],
  logger: Logger,
): Promise<Registry | undefined> {
  const requested = options.lock ?? "off";
  if (failures.length > 0 && requested === "frozen") {
    failures.push(
      new HostError(
        "LOCK_STALE",
        "--frozen-lock: no skill is loaded while the manifest itself is invalid; fix the problems above to see its skills' own",
      ),
    );
    return undefined;
  }
  const mode = failures.length > 0 ? "off" : requested;
  return collected(failures, async () => {
    // Each manifest has its own lock beside it (lockPathOf); another manifest's is never read.
    const lock =
      mode === "off" ? undefined : mode === "frozen" ? await requireLock(manifest) : await readLock(manifest);
    return buildRegistry(manifest, {
      ...registryOptions(options, logger),
      ...(lock === undefined ? {} : { lock, lockMode: mode === "frozen" ? "frozen" : "auto" }),
      onStaleLock: (stale) =>
        logger.warn(
          { problems: stale },
          `${path.basename(lockPathOf(manifest))} is out of date, so every skill loads now; run ${lockCommand(manifest)}`,
        ),
    });
  });
}

/** What `run` returns, or undefined when it throws a HostError, which joins `failures`. */
async function collected<T>(failures: HostError[], run: () => Promise<T>): Promise<T | undefined> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof HostError)) throw error;
    failures.push(error);
    return undefined;
  }
}

/**
 * One error for every failure: a single one keeps its own words (e.g. --frozen-lock's summary and fix); several
 * are listed together, each problem once, without the "[skillport]" of the message it came from.
 */
function startupError(file: string, failures: readonly HostError[]): HostError {
  const [first] = failures;
  if (first === undefined) return new HostError("MANIFEST_INVALID", `[skillport] cannot start from ${file}`);
  if (failures.length === 1) return first;
  const problems = failures
    .flatMap((failure) => (failure.problems.length > 0 ? failure.problems : [failure.message]))
    .map((problem) => problem.replace(/^\[skillport\] /, ""));
  return cannotStart(first.code, file, problems);
}

/** Below this length the redactor matches a secret only whole and plain (see redaction/secret-forms.ts). */
const SHORT_SECRET = 8;

/** The manifest's confirmation secret, if it names one; a missing or short one stops the host. */
async function confirmationSecret(manifest: LoadedManifest): Promise<string | undefined> {
  const source = manifest.confirmation.secret;
  if (source === undefined) return undefined;
  const reading = await readSecret(source, manifest.dir);
  const fix = `set it to at least ${MIN_CONFIRMATION_SECRET_BYTES} random bytes (e.g. openssl rand -hex 32), or remove confirmation.secret for a random one per process`;
  if (reading.value === undefined) {
    throw new HostError("MANIFEST_INVALID", `[skillport] confirmation.secret: ${reading.where} is not set; ${fix}`);
  }
  const bytes = Buffer.byteLength(reading.value);
  if (bytes < MIN_CONFIRMATION_SECRET_BYTES) {
    throw new HostError(
      "MANIFEST_INVALID",
      `[skillport] confirmation.secret: the secret in ${reading.where} has ${bytes} bytes, which an attacker can guess offline from one confirmation token; ${fix}`,
    );
  }
  return reading.value;
}

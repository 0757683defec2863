import { createAjv } from "./ajv.js";
import { HostError } from "./errors.js";
import type { Logger } from "./log.js";
import { createLogger, redactingLogger } from "./log.js";
import { loadManifest } from "./manifest/load-manifest.js";
import type { LoadedManifest } from "./manifest/manifest.js";
import { createAudit } from "./pipeline/audit.js";
import { createBoundedRun } from "./pipeline/bounded-run.js";
import { createConfirmations, MIN_CONFIRMATION_SECRET_BYTES } from "./pipeline/confirmations.js";
import type { Pipeline } from "./pipeline/pipeline.js";
import { createPipeline } from "./pipeline/pipeline.js";
import type { Redactor } from "./pipeline/redact.js";
import { createRedactor } from "./pipeline/redact.js";
import type { Requests } from "./pipeline/requests.js";
import { createRequests } from "./pipeline/requests.js";
import { createValidators } from "./pipeline/validators.js";
import type { SkillModule } from "./registry/build-registry.js";
import { buildRegistry } from "./registry/build-registry.js";
import { frozenLockError, LOCK_FILE, readLock } from "./registry/lock.js";
import { readSecret } from "./registry/read-secret.js";
import type { Registry } from "./registry/registry.js";

/** Options for {@link createHost}. */
export interface HostOptions {
  /**
   * A manifest file, or one already loaded with loadManifest().
   * @default "skills.manifest.json" in the current folder
   */
  manifest?: string | LoadedManifest;
  /**
   * Where the host logs. Whichever logger, every line passes through the host's redactor (see {@link Host.redactor}).
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
   * Whether to start from skills.lock.json: "auto" uses a current lock and warns about a stale one (then imports
   * every skill now); "frozen" refuses to start without a current lock (CI, production); "off" imports every skill.
   * With a current lock tools/list needs no skill import; each skill is imported on its first call.
   * @default "off"
   */
  lock?: "auto" | "frozen" | "off";
}

/** A manifest turned into a tool table and a call pipeline; transports serve it. */
export interface Host {
  manifest: LoadedManifest;
  registry: Registry;
  /** Tool calls. */
  pipeline: Pipeline;
  /** Resource reads, prompt renders, completions and resource listings, bounded and checked like tool calls. */
  requests: Requests;
  logger: Logger;
  /**
   * Knows every secret the host read; whatever leaves the host passes through it, every line of `logger`
   * included. Add a secret the host should hide but did not read itself (e.g. an HTTP token) with `add`.
   */
  redactor: Redactor;
  /** Stops isolation workers; serving transports call it on shutdown. */
  close(): Promise<void>;
}

/**
 * Loads the manifest and its skills and builds the host. Throws a HostError listing every problem
 * (invalid manifest, unknown package, invalid config, name conflict) when it cannot start.
 *
 * @example
 * const host = await createHost({ manifest: "./skills.manifest.json" });
 * const outcome = await host.pipeline.call("notes.search_notes", { keyword: "agent" });
 */
export async function createHost(options: HostOptions = {}): Promise<Host> {
  const manifest = typeof options.manifest === "object" ? options.manifest : await loadManifest(options.manifest);
  // The redactor comes first, so that no line the host logs can skip it; it learns each secret as it is read.
  const redactor = createRedactor();
  const logger = options.logger === undefined ? createLogger({ redactor }) : redactingLogger(options.logger, redactor);
  const mode = options.lock ?? "off";
  const lock = mode === "off" ? undefined : await lockFor(manifest, mode);
  const registry = await buildRegistry(manifest, {
    modules: options.modules ?? {},
    logger,
    ...(lock === undefined ? {} : { lock, lockMode: mode === "frozen" ? "frozen" : "auto" }),
    onStaleLock: (problems) =>
      logger.warn({ problems }, `${LOCK_FILE} is out of date, so every skill loads now; run skillport lock`),
  });
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
  for (const failure of registry.failures) {
    logger.error(
      { instance: failure.source },
      `a skill could not be loaded and its tools are not served: ${failure.message}`,
    );
  }
  const secret = await confirmationSecret(manifest);
  redactor.add([secret]);
  const audit = createAudit(manifest.audit, redactor);
  const confirmations = createConfirmations({ secret, ttlSeconds: manifest.confirmation.ttlSeconds });
  // One bounded runner for tool calls and for reads, renders and completions: one concurrency limit per instance.
  const run = createBoundedRun({ logger, redactor });
  const pipeline = createPipeline(registry, {
    logger,
    redactor,
    audit,
    confirmations,
    confirmationFallback: manifest.confirmation.fallback,
    run,
  });
  const validators = createValidators(
    createAjv({ firstError: true }),
    createAjv({ firstError: true, fillDefaults: false }),
  );
  const requests = createRequests(registry, { logger, redactor, audit, confirmations, validators, run });
  return { manifest, registry, pipeline, requests, logger, redactor, close: () => registry.close() };
}

// --- internal ---

/** Below this length the redactor matches a secret only whole and plain (see pipeline/redact.ts). */
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

/** The manifest's lock; with --frozen-lock, a missing one stops the host. Whether it matches is buildRegistry's call. */
async function lockFor(manifest: LoadedManifest, mode: "auto" | "frozen") {
  const lock = await readLock(manifest);
  if (lock === undefined && mode === "frozen") throw frozenLockError([`there is no ${LOCK_FILE} beside the manifest`]);
  return lock;
}

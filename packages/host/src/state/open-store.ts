import { HostError } from "../errors/host-error.js";
import type { Logger } from "../logging/logger.js";
import { STATE_DEFAULTS } from "../manifest/defaults.js";
import type { LoadedManifest } from "../manifest/manifest.js";
import { readSecret } from "../manifest/read-secret.js";
import type { Redactor } from "../redaction/redactor.js";
import { createMemoryStore } from "./memory-store.js";
import { createMemoryTaskStore } from "./memory-task-store.js";
import { createRedisSealedStore } from "./redis-sealed-store.js";
import { createRedisStore } from "./redis-store.js";
import { createRedisTaskStore } from "./redis-task-store.js";
import type { SealedStore } from "./sealed-store.js";
import { createMemorySealedStore } from "./sealed-store.js";
import type { StateStore, StoreHealth } from "./store.js";
import type { TaskStore } from "./task-store.js";

/** What {@link openStore} needs besides the manifest. */
export interface OpenStoreOptions {
  redactor: Redactor;
  logger: Logger;
  /** Where SKILLPORT_STATE_URL and `{ "env" }` sources are read. @default process.env */
  env?: Readonly<Record<string, string | undefined>>;
  /** Told whenever the store becomes reachable or unreachable. */
  onHealth?: (health: StoreHealth) => void;
}

/** The stores the manifest asks for: the shared state, and the tasks, in the same place. */
export interface OpenedStores {
  state: StateStore;
  tasks: TaskStore;
  /** Where per-caller credentials are kept when the manifest keeps them with the state (nothing opens until used). */
  sealed: SealedStore;
}

/**
 * The stores the manifest asks for: SKILLPORT_STATE_URL when set, else `state` (memory by default); the tasks are
 * kept beside the shared state (in this process, or in the same Redis under the same prefix). The Redis URL is
 * read like a credential and its password registered with the redactor (as written and decoded) before anything can
 * log it. A missing or malformed URL stops the host, naming where it was looked for, never the value.
 */
export async function openStores(manifest: LoadedManifest, options: OpenStoreOptions): Promise<OpenedStores> {
  const { redactor, env = process.env } = options;
  const fromEnv = Object.hasOwn(env, STATE_DEFAULTS.urlVariable) ? env[STATE_DEFAULTS.urlVariable]?.trim() : undefined;
  const state = manifest.state;
  if ((fromEnv === undefined || fromEnv === "") && state.store === "memory") {
    return { state: createMemoryStore(), tasks: createMemoryTaskStore(), sealed: createMemorySealedStore() };
  }
  let url: string;
  let where: string;
  if (fromEnv !== undefined && fromEnv !== "") {
    url = fromEnv;
    where = `the environment variable ${STATE_DEFAULTS.urlVariable}`;
  } else if (state.store === "redis") {
    const reading = await readSecret(state.url, manifest.dir, env);
    if (reading.value === undefined) {
      throw new HostError(
        "MANIFEST_INVALID",
        `[skillport] state.url: ${reading.where} is ${reading.missing === "unreadable" ? `unreadable (${reading.code})` : "not set"}; set it to the Redis URL (redis://host:6379), or remove "state" to keep state in each process`,
      );
    }
    url = reading.value;
    where = reading.where;
  } else {
    throw new Error("unreachable");
  }
  const parsed = parseRedisUrl(url);
  if (parsed === undefined) {
    // Not a URL: there is no telling which part is a password, so none of it may be logged.
    redactor.add([url]);
    throw new HostError(
      "MANIFEST_INVALID",
      `[skillport] state.url: the value of ${where} is not a redis:// or rediss:// URL; write it as redis://[user:password@]host:port[/db]`,
    );
  }
  // The password is the secret (not the host and port, which the redactor would otherwise hide wherever 12 of
  // their characters appear, in the server's own URL too), as written and decoded.
  const password = safeDecode(parsed.password);
  redactor.add([parsed.password, password]);
  if (password !== "" && password.length < SHORT_SECRET) {
    options.logger.warn(
      `the Redis password in ${where} has fewer than ${SHORT_SECRET} characters, so redaction finds it only whole and unencoded; use a longer one`,
    );
  }
  const prefix = state.store === "redis" && state.prefix !== undefined ? state.prefix : `skillport:${manifest.name}:`;
  options.logger.debug({ store: "redis", where, prefix }, "sharing state in redis");
  return {
    state: await createRedisStore({
      url,
      prefix,
      ...(options.onHealth === undefined ? {} : { onHealth: options.onHealth }),
    }),
    tasks: await createRedisTaskStore({ url, prefix }),
    sealed: await createRedisSealedStore({ url, prefix }),
  };
}

// --- internal ---

/** Below this length the redactor matches a secret only whole and plain (see redaction/secret-forms.ts). */
const SHORT_SECRET = 8;

function parseRedisUrl(text: string): URL | undefined {
  try {
    const url = new URL(text);
    return url.protocol === "redis:" || url.protocol === "rediss:" ? url : undefined;
  } catch {
    return undefined;
  }
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

import { HostError } from "../errors.js";
import type { Logger } from "../log.js";
import { STATE_DEFAULTS } from "../manifest/defaults.js";
import type { LoadedManifest } from "../manifest/manifest.js";
import type { Redactor } from "../pipeline/redact.js";
import { readSecret } from "../registry/read-secret.js";
import { createMemoryStore } from "./memory-store.js";
import { createRedisStore } from "./redis-store.js";
import type { StateStore, StoreHealth } from "./store.js";

/** What {@link openStore} needs besides the manifest. */
export interface OpenStoreOptions {
  redactor: Redactor;
  logger: Logger;
  /** Where SKILLPORT_STATE_URL and `{ "env" }` sources are read. @default process.env */
  env?: Readonly<Record<string, string | undefined>>;
  /** Told whenever the store becomes reachable or unreachable. */
  onHealth?: (health: StoreHealth) => void;
}

/**
 * The store the manifest asks for: SKILLPORT_STATE_URL when set, else `state` (memory by default). The Redis URL is
 * read like a credential and registered with the redactor, whole and its password alone, before anything can log
 * it. A missing or malformed URL stops the host, naming where it was looked for.
 */
export async function openStore(manifest: LoadedManifest, options: OpenStoreOptions): Promise<StateStore> {
  const { redactor, env = process.env } = options;
  const fromEnv = Object.hasOwn(env, STATE_DEFAULTS.urlVariable) ? env[STATE_DEFAULTS.urlVariable]?.trim() : undefined;
  const state = manifest.state;
  if ((fromEnv === undefined || fromEnv === "") && state.store === "memory") return createMemoryStore();
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
  // Whatever parsing found, the URL and its password are secrets from here on, even in the error below.
  redactor.add([url, parsed?.password, parsed === undefined ? undefined : safeDecode(parsed.password)]);
  if (parsed === undefined) {
    throw new HostError(
      "MANIFEST_INVALID",
      `[skillport] state.url: the value of ${where} is not a redis:// or rediss:// URL; write it as redis://[user:password@]host:port[/db]`,
    );
  }
  const prefix = state.store === "redis" && state.prefix !== undefined ? state.prefix : `skillport:${manifest.name}:`;
  options.logger.debug({ store: "redis", where, prefix }, "sharing state in redis");
  return createRedisStore({ url, prefix, ...(options.onHealth === undefined ? {} : { onHealth: options.onHealth }) });
}

// --- internal ---

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

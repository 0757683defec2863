import path from "node:path";
import type { LoadedManifest } from "@skillport/host";
import { HostError } from "@skillport/host";
import type { Vault } from "@skillport/host/surface";
import { createRedactor, createVault, openFileSealedStore, openStores, readKeyring } from "@skillport/host/surface";
import { quietLogger } from "./quiet-logger.js";

/** A manifest's vault, opened for the operator, and where it is, for messages. */
export interface OpenedVault {
  vault: Vault;
  /** `the file ./.credentials`, `Redis (the state's)`. */
  where: string;
  close(): Promise<void>;
}

/**
 * Opens the vault a manifest names (`credentials.store`) with its keys, starting no skill and no server: a file
 * store, or the state's Redis (the manifest's `state`, or SKILLPORT_STATE_URL). A store kept in the host's memory
 * cannot be reached from another process, so it is refused, saying what to use instead.
 *
 * @example
 * const { vault, close } = await openVault(await loadManifest("skills.manifest.json"));
 */
export async function openVault(manifest: LoadedManifest): Promise<OpenedVault> {
  const settings = manifest.credentials;
  const name = path.basename(manifest.file);
  if (settings === undefined) {
    throw new HostError(
      "MANIFEST_INVALID",
      `[skillport] ${name} has no "credentials", so it keeps no caller's credential: add "credentials": { "keys": [{ "id": "1", "env": "SKILLPORT_CREDENTIALS_KEY" }], "store": { "file": "./.credentials" } } (a key from openssl rand -base64 32)`,
    );
  }
  const { keyring } = await readKeyring(settings, manifest.dir);
  if (settings.store !== "state") {
    const file = path.resolve(manifest.dir, settings.store.file);
    const store = await openFileSealedStore(file);
    return { vault: createVault(store, keyring), where: `the file ${settings.store.file}`, close: () => store.close() };
  }
  const opened = await openStores(manifest, { redactor: createRedactor(), logger: quietLogger() });
  // Only the sealed records are needed here.
  await Promise.all([opened.state.close(), opened.tasks.close()]);
  if (opened.sealed.kind === "memory") {
    await opened.sealed.close();
    throw new HostError(
      "MANIFEST_INVALID",
      `[skillport] credentials.store: ${name} keeps callers' credentials with the state, and its state is in the host's memory, which another process cannot reach: set "credentials.store" to { "file": "./.credentials" } (one machine), or keep the state in Redis ("state": { "store": "redis", "url": { "env": "REDIS_URL" } } or SKILLPORT_STATE_URL)`,
    );
  }
  return {
    vault: createVault(opened.sealed, keyring),
    where: "Redis (with the state)",
    close: () => opened.sealed.close(),
  };
}

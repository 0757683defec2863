import path from "node:path";
import { HostError } from "../errors/host-error.js";
import type { LoadedManifest } from "../manifest/manifest.js";
import type { Redactor } from "../redaction/redactor.js";
import { openFileSealedStore } from "../state/file-sealed-store.js";
import type { SealedStore } from "../state/sealed-store.js";
import type { StateStore } from "../state/store.js";
import type { CallerSlot } from "./caller-slot.js";
import type { ConnectLinks } from "./connect-links.js";
import { createConnectLinks } from "./connect-links.js";
import { readKeyring } from "./keyring.js";
import type { OAuthConnections } from "./oauth-connect.js";
import { createOAuthConnections } from "./oauth-connect.js";
import type { CredentialResolver } from "./resolve-credentials.js";
import { createCredentialResolver } from "./resolve-credentials.js";
import { createTokenExchange } from "./token-exchange.js";
import type { Vault } from "./vault.js";
import { createVault } from "./vault.js";

/**
 * A host's per-caller credentials: the sealed vault, the connect links, the resolver the pipeline's credentials
 * stage uses, and the slots of the table in place. Undefined on a host whose manifest has no `credentials`.
 */
export interface HostCredentials {
  readonly vault: Vault;
  readonly links: ConnectLinks;
  readonly resolver: CredentialResolver;
  /** Connections through OAuth: what the connections page starts and finishes (the callback). */
  readonly oauth: OAuthConnections;
  /** Every per-caller slot of the table in place (skill credentials and servers). */
  slots(): readonly CallerSlot[];
  /**
   * The origin connect links and the OAuth callback are on (`https://skills.example.com`): `serve --http` sets it
   * when it knows where it listens (its publicUrl, else the bound address). Until then links cannot be minted.
   */
  baseUrl: string | undefined;
  close(): Promise<void>;
}

/** What {@link openCredentials} needs besides the manifest. */
export interface OpenCredentialsOptions {
  /** The shared state store: connect links are claimed there, once across replicas. */
  state: StateStore;
  /** Where records are kept when the manifest says `"store": "state"` (memory, or the state's Redis). */
  sealed: SealedStore;
  redactor: Redactor;
  slots: () => readonly CallerSlot[];
  env?: Readonly<Record<string, string | undefined>>;
  now?: () => number;
}

/**
 * Opens the manifest's per-caller credentials: reads its keys (taught to the redactor), opens the store, and makes
 * the links and the resolver. A table with per-caller slots and a manifest without `credentials` does not start.
 */
export async function openCredentials(
  manifest: LoadedManifest,
  options: OpenCredentialsOptions,
): Promise<HostCredentials | undefined> {
  const settings = manifest.credentials;
  if (settings === undefined) {
    const places = options.slots().map((slot) => slot.where);
    if (places.length === 0) return undefined;
    throw new HostError(
      "MANIFEST_INVALID",
      `[skillport] ${places.join(", ")} ${places.length === 1 ? "is" : "are"} per caller, and the manifest says nowhere to keep callers' credentials: add "credentials": { "keys": [{ "id": "1", "env": "SKILLPORT_CREDENTIALS_KEY" }] } (a key from openssl rand -base64 32)`,
    );
  }
  const { keyring, secrets } = await readKeyring(settings, manifest.dir, options.env);
  options.redactor.add(secrets);
  const store =
    settings.store === "state"
      ? options.sealed
      : await openFileSealedStore(path.resolve(manifest.dir, settings.store.file));
  const vault = createVault(store, keyring);
  const links = createConnectLinks({
    keyring,
    state: options.state,
    ttlMs: settings.linkTtlSeconds * 1000,
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  const now = options.now === undefined ? {} : { now: options.now };
  const oauth = createOAuthConnections({
    vault,
    slots: options.slots,
    baseUrl: () => credentials.baseUrl,
    clientName: `Skillport (${manifest.name})`,
    flowTtlMs: settings.linkTtlSeconds * 1000,
    ...now,
  });
  const credentials: HostCredentials = {
    vault,
    links,
    oauth,
    resolver: createCredentialResolver({
      vault,
      links,
      redactor: options.redactor,
      baseUrl: () => credentials.baseUrl,
      refresh: oauth.refresh,
      exchange: createTokenExchange(now),
      ...now,
    }),
    slots: options.slots,
    baseUrl: undefined,
    close: async () => {
      await store.close();
    },
  };
  return credentials;
}

import path from "node:path";
import type { Transport } from "@modelcontextprotocol/client";

/** What the inproc and worker transports use of `@skillport/host`, typed here so the client needs none of its types. */
export interface HostRuntime {
  /** Builds the host and serves it over an in-memory pair; answers the client's half and how to free it all. */
  open(options: HostOpenOptions): Promise<{ transport: Transport; close(): Promise<void> }>;
}

/** The manifest and settings a host is built from (the inproc and worker specs' fields). */
export interface HostOpenOptions {
  manifest: string | Record<string, unknown>;
  dir?: string | undefined;
  lock?: "auto" | "frozen" | "off" | undefined;
  logLevel?: string | undefined;
  modules?: Record<string, unknown> | undefined;
}

/** Why the host could not be loaded: it is not installed (HOST_MISSING), or it failed to load. */
export interface HostLoadFailure {
  missing: boolean;
  message: string;
}

/**
 * What the host reaches a manifest's upstream servers with (`createHost`'s `client`): this package's node entry,
 * `connect` and `linearRegExp`. Called only when the manifest has servers.
 */
export type ClientLoader = () => Promise<unknown>;

/**
 * Imports `@skillport/host` (an optional peer dependency) the first time a host is needed. Missing, it answers
 * a failure that says how to install it, instead of throwing a resolution error. The hosts it opens mount a
 * manifest's `servers` through `client`.
 */
export async function loadHost(client: ClientLoader): Promise<HostRuntime | HostLoadFailure> {
  let root: HostRootModule;
  let testing: { connectInMemory(host: unknown): Promise<Transport> };
  try {
    root = (await import("@skillport/host")) as unknown as HostRootModule;
    testing = (await import("@skillport/host/testing")) as unknown as typeof testing;
  } catch (cause) {
    const code = (cause as { code?: unknown }).code;
    const text = cause instanceof Error ? cause.message : String(cause);
    // Node names a missing package in quotes ('@skillport/host'); a missing file inside it is a broken install.
    if ((code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") && /['"]@skillport\/host['"/]/.test(text)) {
      return {
        missing: true,
        message:
          "this transport runs a Skillport host, and @skillport/host is not installed; add it beside @skillport/client (pnpm add @skillport/host)",
      };
    }
    return { missing: false, message: `@skillport/host failed to load: ${text}` };
  }
  return {
    async open(options) {
      const manifest =
        typeof options.manifest === "string"
          ? options.manifest
          : root.parseManifest(options.manifest, path.join(path.resolve(options.dir ?? "."), "skills.manifest.json"));
      const host = await root.createHost({
        manifest,
        logger: root.createLogger({ level: options.logLevel ?? "warn" }),
        lock: options.lock ?? "off",
        // A manifest's `servers` are mounted through this same client, imported only when one has servers.
        client,
        ...(options.modules === undefined ? {} : { modules: options.modules }),
      });
      try {
        const transport = await testing.connectInMemory(host);
        return { transport, close: () => host.close() };
      } catch (cause) {
        await host.close();
        throw cause;
      }
    },
  };
}

// --- internal ---

interface HostRootModule {
  createHost(options: Record<string, unknown>): Promise<{ close(): Promise<void> }>;
  parseManifest(json: unknown, file: string): unknown;
  createLogger(options: { level: string }): unknown;
}

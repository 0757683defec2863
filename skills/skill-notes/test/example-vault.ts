import { cp, mkdtemp, realpath, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The example vault shipped with the repository; tests only ever read it. */
const EXAMPLE_VAULT = fileURLToPath(new URL("../../../examples/vault", import.meta.url));

/** The string every note under Private/ carries; no successful result may contain it. */
export const PRIVATE_MARKER = "SECRET-PRIVATE-MARKER";

/** A copy of the example vault in a fresh temporary folder. */
export interface VaultCopy {
  /** The temporary folder: holds `vault/` and room for files outside the vault. */
  root: string;
  /** The copied vault, `<root>/vault`. */
  path: string;
  /** Deletes the temporary folder and everything in it. */
  remove(): Promise<void>;
}

/** Copies the example vault into a fresh folder under the OS temp dir. */
export async function copyExampleVault(): Promise<VaultCopy> {
  const root = await realpath(await mkdtemp(path.join(os.tmpdir(), "skill-notes-test-")));
  const vault = path.join(root, "vault");
  await cp(EXAMPLE_VAULT, vault, { recursive: true });
  return { root, path: vault, remove: () => rm(root, { recursive: true, force: true }) };
}

/** Runs `fn` and returns what it threw; fails when it did not throw. */
export async function thrown(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to throw, but it succeeded");
}

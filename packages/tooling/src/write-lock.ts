import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { LoadedManifest, Registry } from "@skillport/host";
import { HostError } from "@skillport/host";
import type { LockFile } from "@skillport/host/surface";
import { hashOf, lockPathOf, readLockFile, serverSourceOf, stringifyLock } from "@skillport/host/surface";

/**
 * The lock of an eagerly built registry (every skill imported): each enabled skill entry with its resolved package
 * version and full surface, each enabled upstream server with the tools it listed, each with its hash.
 *
 * @example
 * const host = await createHost({ manifest: "skills.manifest.json", lock: "off" });
 * await writeLock(host.manifest, lockOf(host.manifest, host.registry));
 */
export function lockOf(manifest: LoadedManifest, registry: Registry): LockFile {
  return {
    lockfileVersion: 1,
    manifest: path.basename(manifest.file),
    instances: registry.instances.map((instance) => {
      const entry = manifest.skills[instance.index];
      const skill = instance.surface;
      return {
        entry: instance.index,
        source: entry?.package ?? entry?.path ?? instance.packageName,
        package: instance.packageName,
        version: instance.version,
        hash: hashOf(skill),
        skill,
      };
    }),
    // A manifest without servers keeps the lock it always had.
    ...(registry.servers.length === 0
      ? {}
      : {
          servers: registry.servers.map((server) => ({
            entry: server.index,
            mcp: server.id,
            source: serverSourceOf(server.entry),
            hash: hashOf(server.tools),
            tools: [...server.tools],
          })),
        }),
  };
}

/**
 * Writes the manifest's lock beside it and answers its path. Refuses (LOCK_CONFLICT), writing nothing, when a file
 * at that path belongs to another manifest or is not a lock at all: one manifest never overwrites another's lock.
 * The file is written as `stringifyLock` lays it out (keys sorted, as the repository's formatter writes JSON), so an
 * unchanged workspace gets the same bytes.
 */
export async function writeLock(manifest: LoadedManifest, lock: LockFile): Promise<string> {
  const file = lockPathOf(manifest);
  const base = path.basename(manifest.file);
  const existing = await readLockFile(manifest);
  if (existing.kind === "other" || existing.kind === "foreign") {
    const whose =
      existing.kind === "other" ? `is the lock of ${existing.manifest}, not of ${base}` : "is not a skill lock";
    throw new HostError(
      "LOCK_CONFLICT",
      `[skillport] not locked: ${file} ${whose}, and it is left as it is; rename ${base} (e.g. to <name>.manifest.json, whose lock is <name>.lock.json) so that each manifest has its own lock`,
    );
  }
  await writeFile(file, stringifyLock({ ...lock, manifest: base }));
  return file;
}

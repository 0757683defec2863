// lockOf and writeLock write what the host reads: a host started from the written lock lists the same tools
// without importing the skill, and one manifest never overwrites another's lock.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createHost, createLogger, HostError } from "@skillport/host";
import { readLock, stringifyLock } from "@skillport/host/surface";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { lockOf, writeLock } from "../src/write-lock.js";

// The host's notebook fixture, one copy for both packages' tests.
const NOTEBOOK = fileURLToPath(new URL("../../host/test/fixtures/skill-notebook/", import.meta.url));
const logger = createLogger({ level: "silent" });

describe("lockOf and writeLock", () => {
  let dir: string;
  let manifest: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "skillport-tooling-lock-"));
    manifest = path.join(dir, "skills.manifest.json");
    const json = { name: "t", version: "1.0.0", skills: [{ path: NOTEBOOK, mcp: "notes", config: { vault: dir } }] };
    await writeFile(manifest, JSON.stringify(json));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("write the lock beside the manifest, which a host then starts from without importing the skill", async () => {
    const eager = await createHost({ manifest, logger, lock: "off" });
    const lock = lockOf(eager.manifest, eager.registry);
    const file = await writeLock(eager.manifest, lock);
    const listings = eager.registry.listings;
    await eager.close();
    expect(file).toBe(path.join(dir, "skills.lock.json"));
    expect(await readFile(file, "utf8")).toBe(stringifyLock({ ...lock, manifest: "skills.manifest.json" }));
    expect(await readLock(eager.manifest)).toEqual({ ...lock, manifest: "skills.manifest.json" });

    const lazy = await createHost({ manifest, logger, lock: "frozen" });
    expect(lazy.registry.fromLock).toBe(true);
    expect(lazy.registry.instances[0]?.loaded).toBe(false);
    expect(lazy.registry.listings).toEqual(listings);
    await lazy.close();
  });

  it("refuse (LOCK_CONFLICT) a file at the lock's path that is another manifest's lock, writing nothing", async () => {
    const host = await createHost({ manifest, logger, lock: "off" });
    const theirs = `${JSON.stringify({ lockfileVersion: 1, manifest: "other.manifest.json", instances: [] })}\n`;
    await writeFile(path.join(dir, "skills.lock.json"), theirs);
    const writing = writeLock(host.manifest, lockOf(host.manifest, host.registry));
    await expect(writing).rejects.toBeInstanceOf(HostError);
    await expect(writing).rejects.toMatchObject({ code: "LOCK_CONFLICT" });
    expect(await readFile(path.join(dir, "skills.lock.json"), "utf8")).toBe(theirs);
    await host.close();
  });
});

import { createHost } from "@skillport/host";
import { lockOf, writeLock } from "@skillport/host/tooling";
import { count } from "../count.js";
import { quietLogger } from "../quiet-logger.js";

export interface LockOptions {
  manifest: string;
}

/**
 * `skillport lock`: imports every enabled skill and writes skills.lock.json beside the manifest: each instance's
 * resolved version and its full tool surface, with a hash, in a stable key order. Exit 1 if a skill fails to load.
 */
export async function lock(options: LockOptions): Promise<number> {
  const host = await createHost({ manifest: options.manifest, logger: quietLogger(), lock: "off" });
  try {
    if (host.registry.failures.length > 0) {
      for (const f of host.registry.failures) process.stderr.write(`✖ ${f.source}: ${f.message}\n`);
      process.stderr.write("[skillport] not locked: every enabled skill must load; fix or disable the ones above\n");
      return 1;
    }
    const lockFile = lockOf(host.manifest, host.registry);
    const file = await writeLock(host.manifest, lockFile);
    const tools = lockFile.instances.reduce((n, i) => n + i.skill.tools.length, 0);
    process.stdout.write(
      `✔ locked ${count(lockFile.instances.length, "skill instance")} (${count(tools, "tool")}) in ${file}\n`,
    );
    return 0;
  } finally {
    await host.close();
  }
}

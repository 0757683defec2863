import { createHost } from "@skillport/host";
import { lockOf, writeLock } from "@skillport/tooling";
import { count } from "../count.js";
import { quietLogger } from "../quiet-logger.js";
import { upstreamClient } from "../upstream-client.js";
import { upstreamPatternReports } from "../upstream-patterns.js";

export interface LockOptions {
  manifest: string;
}

/**
 * `skillport lock`: imports every enabled skill and writes the manifest's own lock beside it (`skills.lock.json` for
 * `skills.manifest.json`, `<name>.lock.json` for `<name>.manifest.json`): each instance's resolved version and its
 * full tool surface, with a hash, keys sorted, laid out as the repository's formatter writes JSON, so relocking an
 * unchanged workspace leaves the file byte for byte. Exit 1 if a skill fails to load or an upstream server cannot be listed, or if the lock's path holds
 * another manifest's lock (left untouched). The patterns of upstream tools' schemas that RE2 cannot run or that are
 * super-linear under backtracking are reported on stderr, as `check` reports them.
 */
export async function lock(options: LockOptions): Promise<number> {
  const host = await createHost({
    manifest: options.manifest,
    client: upstreamClient,
    logger: quietLogger(),
    lock: "off",
  });
  try {
    if (host.registry.failures.length > 0) {
      for (const f of host.registry.failures) process.stderr.write(`✖ ${f.source}: ${f.message}\n`);
      process.stderr.write("[skillport] not locked: every enabled skill must load; fix or disable the ones above\n");
      return 1;
    }
    // Locked all the same (the host refuses a tool whose pattern RE2 cannot run), but said before the lock is read.
    for (const report of upstreamPatternReports(host)) {
      process.stderr.write(`⚠ ${report.where}: ${report.message}\n`);
    }
    const lockFile = lockOf(host.manifest, host.registry);
    const file = await writeLock(host.manifest, lockFile);
    const servers = lockFile.servers ?? [];
    const tools =
      lockFile.instances.reduce((n, i) => n + i.skill.tools.length, 0) +
      servers.reduce((n, s) => n + s.tools.length, 0);
    const what = count(lockFile.instances.length, "skill instance");
    const upstream = servers.length === 0 ? "" : ` and ${count(servers.length, "upstream server")}`;
    process.stdout.write(`✔ locked ${what}${upstream} (${count(tools, "tool")}) in ${file}\n`);
    return 0;
  } finally {
    await host.close();
  }
}

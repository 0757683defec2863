import { createHost } from "@skillport/host";
import { quietLogger } from "../quiet-logger.js";

export interface CheckOptions {
  manifest: string;
  json?: boolean;
}

/** `skillport check`: validates the manifest, loads every enabled skill and reports what would be served. */
export async function check(options: CheckOptions): Promise<number> {
  const host = await createHost({ manifest: options.manifest, logger: quietLogger() });
  const summary = {
    ok: true,
    manifest: host.manifest.file,
    instances: host.registry.instances.map((i) => ({
      mcp: i.id,
      skill: `${i.packageName}@${i.version}`,
      tools: [...host.registry.tools.values()].filter((t) => t.instance === i).map((t) => t.fullName),
    })),
  };
  if (options.json) {
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  } else {
    const tools = summary.instances.reduce((n, i) => n + i.tools.length, 0);
    process.stdout.write(
      `✔ ${host.manifest.file}: ${summary.instances.length} skill instances, ${tools} tools, no conflicts\n`,
    );
  }
  return 0;
}

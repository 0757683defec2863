import { createHost } from "@skillport/host";
import { quietLogger } from "../quiet-logger.js";

export interface CheckOptions {
  manifest: string;
  json?: boolean;
}

/** One thing `check` found: an error fails the check, a warning does not. */
interface Finding {
  severity: "error" | "warning";
  where: string;
  message: string;
}

/**
 * `skillport check`: validates the manifest, loads every enabled skill and reports what would be served and
 * what would fail at run time (a missing credential). Exit 0 when clean, 1 on any error.
 */
export async function check(options: CheckOptions): Promise<number> {
  const host = await createHost({ manifest: options.manifest, logger: quietLogger() });
  const findings: Finding[] = [];
  for (const instance of host.registry.instances) {
    for (const message of instance.missingCredentials) {
      findings.push({ severity: "error", where: instance.source, message });
    }
  }
  const ok = !findings.some((f) => f.severity === "error");
  const summary = {
    ok,
    manifest: host.manifest.file,
    instances: host.registry.instances.map((i) => ({
      mcp: i.id,
      skill: `${i.packageName}@${i.version}`,
      tools: [...host.registry.tools.values()].filter((t) => t.instance === i).map((t) => t.fullName),
    })),
    findings,
  };
  if (options.json) {
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  } else {
    const tools = summary.instances.reduce((n, i) => n + i.tools.length, 0);
    for (const f of findings) process.stdout.write(`${f.severity === "error" ? "✖" : "!"} ${f.where}: ${f.message}\n`);
    process.stdout.write(
      `${ok ? "✔" : "✖"} ${host.manifest.file}: ${summary.instances.length} skill instances, ${tools} tools, no conflicts${findings.length > 0 ? `, ${findings.length} problems` : ""}\n`,
    );
  }
  await host.close();
  return ok ? 0 : 1;
}

import type { Host } from "@skillport/host";
import type { UpstreamPatternFinding } from "@skillport/tooling";
import { lintUpstreamPatterns } from "@skillport/tooling";

/** One pattern finding of a served upstream tool, with where it is: `servers[0] ("bad"), tool match /inputSchema/…`. */
export interface UpstreamPatternReport extends UpstreamPatternFinding {
  where: string;
}

/**
 * The patterns of every upstream tool the host serves (as each server listed it), linted by `lintUpstreamPatterns`:
 * those RE2 cannot run (errors) and those super-linear under backtracking (warnings), in manifest and listing order.
 */
export function upstreamPatternReports(host: Host): UpstreamPatternReport[] {
  const reports: UpstreamPatternReport[] = [];
  for (const server of host.registry.servers) {
    const served = new Set(
      [...host.registry.tools.values()].filter((entry) => entry.instance === server).map((entry) => entry.toolName),
    );
    for (const tool of server.tools) {
      if (!served.has(tool.name)) continue;
      for (const finding of lintUpstreamPatterns(tool, server.linearRegExp)) {
        reports.push({ ...finding, where: `${server.source}, tool ${tool.name} ${finding.pointer}` });
      }
    }
  }
  return reports;
}

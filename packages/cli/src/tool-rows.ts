import type { Host } from "@skillport/host";

/** One row per served tool: what `list` prints and the banner shows. */
export interface ToolRow {
  name: string;
  risk: string;
  skill: string;
  title: string;
}

export function toolRows(host: Host): ToolRow[] {
  return [...host.registry.tools.values()].map((entry) => ({
    name: entry.fullName,
    risk: entry.risk,
    skill: `${entry.instance.packageName}@${entry.instance.version}`,
    title: entry.listing.title,
  }));
}

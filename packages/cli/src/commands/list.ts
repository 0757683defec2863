import { createHost } from "@skillport/host";
import { formatTable } from "../format-table.js";
import { quietLogger } from "../quiet-logger.js";
import { toolRows } from "../tool-rows.js";
import { upstreamClient } from "../upstream-client.js";

export interface ListOptions {
  manifest: string;
  json?: boolean;
}

/** `skillport list`: the served tools with risk, skill@version and title. */
export async function list(options: ListOptions): Promise<number> {
  const host = await createHost({
    manifest: options.manifest,
    client: upstreamClient,
    logger: quietLogger(),
    lock: "auto",
  });
  const rows = toolRows(host);
  // Listing starts no upstream server that has a lock entry; one listed live is stopped again.
  await host.close();
  if (options.json) {
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
  } else {
    const table = formatTable(
      ["TOOL", "RISK", "SKILL", "TITLE"],
      rows.map((r) => [r.name, r.risk, r.skill, r.title]),
    );
    process.stdout.write(`${table}\n`);
  }
  return 0;
}

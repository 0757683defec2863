// Records the tool definitions of public MCP servers as fixtures for bench/discovery.mjs: each server is started over
// stdio by the official SDK client (with dummy credentials where listing needs none), its tools/list is taken, and
// only the definitions it publishes are kept (name, title, description, input schema, annotations) with where they
// came from: the package, its version and its license. No code of theirs is copied.
//
// The servers are not dependencies of this repository: install them in a scratch folder first, then point at it:
//   mkdir /tmp/mcp-servers && cd /tmp/mcp-servers && npm init -y && npm install --ignore-scripts <packages below>
//   node bench/discovery/record-fixtures.mjs --from /tmp/mcp-servers [--only <id>,<id>]
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { SOURCES } from "./sources.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const option = (name) => {
  const at = argv.indexOf(name);
  return at === -1 ? undefined : argv[at + 1];
};
const from = option("--from");
if (from === undefined) {
  console.error("usage: node bench/discovery/record-fixtures.mjs --from <folder with the servers installed>");
  process.exit(2);
}
const only = option("--only")?.split(",");
const scratch = mkdtempSync(path.join(os.tmpdir(), "skillport-record-"));
const date = new Date().toISOString().slice(0, 10);

for (const source of SOURCES.filter((s) => only === undefined || only.includes(s.id))) {
  const dir = path.join(from, "node_modules", source.package);
  const pkg = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8"));
  const bins = typeof pkg.bin === "string" ? { [pkg.name]: pkg.bin } : (pkg.bin ?? {});
  const bin = bins[source.bin ?? Object.keys(bins)[0]];
  const args = (source.args ?? []).map((a) => a.replaceAll("$SCRATCH", scratch));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(dir, bin), ...args],
    env: { PATH: process.env.PATH, HOME: scratch, ...(source.env ?? {}) },
    cwd: scratch,
    stderr: "ignore",
  });
  const client = new Client({ name: "skillport-record", version: "0" });
  try {
    await withTimeout(client.connect(transport), 60_000);
    const { tools } = await withTimeout(client.listTools(), 60_000);
    const kept = tools.map((t) => ({
      name: t.name,
      ...(t.title === undefined ? {} : { title: t.title }),
      description: t.description ?? "",
      inputSchema: t.inputSchema,
      ...(t.annotations === undefined ? {} : { annotations: t.annotations }),
    }));
    const fixture = {
      source: {
        id: source.id,
        package: pkg.name,
        version: pkg.version,
        license: source.license ?? pkg.license,
        recorded: date,
        how: `tools/list of \`${[source.bin ?? Object.keys(bins)[0], ...(source.args ?? [])].join(" ")}\` over stdio${source.env === undefined ? "" : `, with dummy ${Object.keys(source.env).join(", ")}`}`,
      },
      tools: kept,
    };
    writeFileSync(path.join(HERE, "fixtures", `${source.id}.json`), `${JSON.stringify(fixture, null, 2)}\n`);
    console.log(`${source.id}: ${kept.length} tools (${pkg.name}@${pkg.version}, ${fixture.source.license})`);
  } catch (error) {
    console.log(`${source.id}: FAILED ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await client.close().catch(() => undefined);
  }
}

function withTimeout(promise, ms) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

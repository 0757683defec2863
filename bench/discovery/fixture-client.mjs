// An upstream client for the benchmark that serves recorded tool definitions (bench/discovery/fixtures/<id>.json) in
// this process: a manifest's `servers` entry `{ "mcp": "linear", "command": "fixture", "args": ["linear"] }` lists the
// tools the real server listed when it was recorded; `"args": ["*"]` lists every fixture's tools at once, each renamed
// `<fixture>_<tool>` (for a composition of thousands of tools under the manifest's 100 servers). Nothing is spawned and no call is answered (the benchmark lists
// and searches only), so thousands of tools cost no processes.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { linearRegExp } from "@skillport/client/node";

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures");

/** The ids of the fixtures. */
const FIXTURE_IDS = readdirSync(FIXTURES)
  .filter((name) => name.endsWith(".json"))
  .map((name) => name.slice(0, -".json".length))
  .sort();

/** The tools a fixture holds, read once; for "*", every fixture's, renamed `<fixture>_<tool>`. */
const tools = new Map();
export function fixtureTools(id) {
  let listed = tools.get(id);
  if (listed === undefined) {
    listed =
      id === "*"
        ? FIXTURE_IDS.flatMap((each) => fixtureTools(each).map((tool) => ({ ...tool, name: `${each}_${tool.name}` })))
        : JSON.parse(readFileSync(path.join(FIXTURES, `${id}.json`), "utf8")).tools;
    tools.set(id, listed);
  }
  return listed;
}

/** The `client` option of createHost: each server entry's first argument names its fixture. */
export const fixtureClient = async () => ({
  linearRegExp,
  connect: (spec) => {
    const listed = fixtureTools(spec.args[0]);
    return {
      start: async () => ({ ok: true, tools: listed }),
      stop: async () => undefined,
      callTool: async () => ({ ok: false, error: { code: "UNAVAILABLE", message: "a fixture answers no call" } }),
      state: { value: "ready", tools: listed, subscribe: () => () => undefined },
    };
  },
});

// biome-ignore-all lint/suspicious/noTemplateCurlyInString: manifests write environment variables as ${NAME}, literally
// A `${NAME}` in a server's command line would put what the host read into the process list (every local user can
// read a process's arguments) and out of the redactor's sight: `serve` and `check` refuse it, naming the field and
// the fix, before anything starts.
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Workspace } from "./workspace.js";
import { makeWorkspace, runCli } from "./workspace.js";

const FIXTURE = fileURLToPath(new URL("../../client/test/fixtures/fixture-server.mjs", import.meta.url));
const TOKEN = "tok_command_line_canary_8f2d1c";

let ws: Workspace;
beforeAll(async () => {
  ws = await makeWorkspace();
});
afterAll(async () => {
  await ws?.dispose();
});

const manifest = (server: Record<string, unknown>) =>
  ws.writeManifest(
    { name: "command-variables", skills: [], servers: [{ mcp: "up", command: process.execPath, ...server }] },
    "variables.manifest.json",
  );

describe("a ${NAME} in a server's command, args or cwd", () => {
  it.each([
    ["serve --stdio", ["serve", "--stdio"]],
    ["check", ["check"]],
  ])("stops `skillport %s` with every such field named, and the fix", async (_name, command) => {
    const file = await manifest({
      command: "${NODE_BIN}",
      args: [FIXTURE, "--token=${UPSTREAM_TOKEN}"],
      cwd: "${WORK_DIR}",
      env: { API_TOKEN: "${UPSTREAM_TOKEN}" },
    });
    const ran = await runCli([...command, "--manifest", file], ws.dir, {
      UPSTREAM_TOKEN: TOKEN,
      NODE_BIN: process.execPath,
      WORK_DIR: ws.dir,
    });
    expect(ran.code, ran.stderr).not.toBe(0);
    const why =
      "variables are read only in env, headers and url (a command line is visible to every local user in the process list); pass it in env, or write the value itself if it is not a secret";
    expect(ran.stderr).toContain(`servers[0].command uses \${NODE_BIN}: ${why}`);
    expect(ran.stderr).toContain(`servers[0].args[1] uses \${UPSTREAM_TOKEN}: ${why}`);
    expect(ran.stderr).toContain(`servers[0].cwd uses \${WORK_DIR}: ${why}`);
    expect(ran.stderr).not.toContain("servers[0].env");
    expect(`${ran.stdout}${ran.stderr}`).not.toContain(TOKEN);
  });

  it("is not refused in env: the server starts and is checked", async () => {
    const file = await manifest({ args: [FIXTURE], env: { API_TOKEN: "${UPSTREAM_TOKEN}" } });
    const ran = await runCli(["check", "--manifest", file], ws.dir, { UPSTREAM_TOKEN: TOKEN });
    expect(ran.stderr).not.toContain("uses ${");
    expect(ran.stdout).toContain("up.echo");
  });
});

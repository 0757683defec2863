// biome-ignore-all lint/suspicious/noTemplateCurlyInString: manifests write environment variables as ${NAME}, literally
// The manifest's `servers`: what the loader refuses, how an entry becomes the client's spec (variables, secrets, the
// child's environment), and a host created without a client. Calls to real upstream servers are tested through
// `skillport serve --stdio` in the CLI's tests (upstream-*.test.ts).
import { describe, expect, it } from "vitest";
import { upstreamRisk } from "../src/entries/upstream-pin.js";
import { upstreamSpec } from "../src/entries/upstream-server.js";
import { HostError } from "../src/errors/host-error.js";
import { parseManifest } from "../src/manifest/load-manifest.js";
import { buildRegistry } from "../src/registry/build-registry.js";
import { manifestOf } from "./helpers.js";

function problemsOf(json: unknown): readonly string[] {
  try {
    parseManifest(json, "/srv/skills.manifest.json");
  } catch (error) {
    expect(error).toBeInstanceOf(HostError);
    return (error as HostError).problems;
  }
  return [];
}

describe("servers in the manifest", () => {
  it("takes entries as MCP clients write them", () => {
    const manifest = parseManifest(
      {
        skills: [],
        servers: [
          { mcp: "fs", command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "./docs"] },
          { mcp: "remote", url: "https://tools.example.com/mcp", headers: { Authorization: "Bearer ${TOKEN}" } },
        ],
      },
      "/srv/skills.manifest.json",
    );
    expect(manifest.servers.map((s) => s.mcp)).toEqual(["fs", "remote"]);
    expect(parseManifest({ skills: [] }, "/srv/skills.manifest.json").servers).toEqual([]);
  });

  it("refuses, all at once, an entry with both or neither of command and url, misplaced fields and a reused id", () => {
    const problems = problemsOf({
      skills: [],
      servers: [
        { mcp: "both", command: "x", url: "https://a.example/mcp" },
        { mcp: "neither" },
        { mcp: "remote", url: "https://a.example/mcp", args: ["-v"], env: { A: "b" } },
        { mcp: "local", command: "x", headers: { "X-Key": "k" } },
        { mcp: "local", command: "y", tools: { include: ["a"], exclude: ["b"] } },
      ],
    });
    expect(problems).toEqual([
      'servers[0]: give exactly one of "command" (a program over stdio) or "url" (a remote server)',
      'servers[1]: give exactly one of "command" (a program over stdio) or "url" (a remote server)',
      'servers[2].args: only a "command" server takes args',
      'servers[2].env: only a "command" server takes env',
      'servers[3].headers: only a "url" server takes headers; give a program its secrets in env',
      'servers[4].tools: use "include" or "exclude", not both',
      'servers[4].mcp: "local" is used twice; each server needs its own id',
    ]);
  });

  it("refuses a caller's credential where the server cannot take it: a program's in a variable, a remote one's in a header", () => {
    const problems = problemsOf({
      skills: [],
      servers: [
        { mcp: "a", command: "x", auth: { perCaller: "token" } },
        { mcp: "b", command: "x", auth: { perCaller: "oauth" } },
        { mcp: "c", url: "https://a.example/mcp", auth: { perCaller: "token", env: "API_TOKEN" } },
        { mcp: "d", command: "x", auth: { perCaller: "token", env: "API_TOKEN" } },
        { mcp: "e", url: "https://a.example/mcp", auth: { perCaller: "oauth" } },
      ],
      credentials: { keys: [{ id: "1", env: "KEY" }] },
    });
    const program =
      'a "command" server gets each caller\'s token in a variable of its process: write { "perCaller": "token", "env": "NAME" }';
    expect(problems).toEqual([
      `servers[0].auth: ${program}`,
      `servers[1].auth: ${program}`,
      'servers[2].auth.env: a "url" server gets the caller\'s token in a header (auth.header), not a variable',
    ]);
  });

  it("refuses a ${NAME} in a program's command, args or cwd, naming each field and the fix; env, headers and url read them", () => {
    const problems = problemsOf({
      skills: [],
      servers: [
        { mcp: "local", command: "${BIN}", args: ["-y", "--token=${TOKEN}", "${A}${B}"], cwd: "${HOME}/work" },
        { mcp: "fine", command: "npx", args: ["$TOKEN", "{TOKEN}"], env: { TOKEN: "${TOKEN}" } },
        { mcp: "remote", url: "https://${HOST_NAME}/mcp", headers: { Authorization: "Bearer ${TOKEN}" } },
      ],
    });
    const why =
      "variables are read only in env, headers and url (a command line is visible to every local user in the process list); pass it in env, or write the value itself if it is not a secret";
    expect(problems).toEqual([
      `servers[0].command uses \${BIN}: ${why}`,
      `servers[0].args[1] uses \${TOKEN}: ${why}`,
      `servers[0].args[2] uses \${A}: ${why}`,
      `servers[0].args[2] uses \${B}: ${why}`,
      `servers[0].cwd uses \${HOME}: ${why}`,
    ]);
  });

  it("refuses unknown fields and object names as keys, like a skill entry", () => {
    const problems = problemsOf({
      skills: [],
      servers: [{ mcp: "fs", command: "x", tokens: "y", env: { constructor: "z" } }],
    });
    expect(problems.join("\n")).toMatch(/servers\/0|servers\[0\]/);
    expect(problems.length).toBeGreaterThanOrEqual(2);
  });
});

describe("an entry as the client's spec", () => {
  const env = { ROOT: "/srv/docs", TOKEN: "token-0123456789abcdef", KEY: "key-0123456789", EMPTY: "" };

  it("expands ${NAME} from the environment in env, headers and url, whose values are secrets; the command line is taken as written", () => {
    const stdio = upstreamSpec(
      {
        mcp: "fs",
        command: "npx",
        args: ["-y", "server", "/srv/docs", "${ROOT}"],
        env: { API_KEY: "${KEY}", MODE: "fast" },
      },
      "servers[0]",
      "/srv",
      env,
    );
    expect(stdio.missing).toEqual([]);
    expect(stdio.spec).toMatchObject({
      transport: "stdio",
      command: "npx",
      // The loader refuses a variable here; one that got past it is not expanded (nothing read reaches the argv).
      args: ["-y", "server", "/srv/docs", "${ROOT}"],
      cwd: "/srv",
      // The child's environment is exactly these, through the client's credentials (hidden from its messages).
      env: {},
      inheritEnv: ["PATH", "HOME"],
      credentials: {
        "env API_KEY": { from: { value: "key-0123456789" }, to: { env: "API_KEY" } },
        "env MODE": { from: { value: "fast" }, to: { env: "MODE" } },
      },
      maxResultBytes: 4 * 1024 * 1024, // the default
    });
    expect(stdio.secrets).toEqual(["key-0123456789"]);

    const http = upstreamSpec(
      {
        mcp: "remote",
        url: "https://tools.example.com/mcp",
        headers: { Authorization: "Bearer ${TOKEN}" },
        maxResultBytes: 65_536,
      },
      "servers[1]",
      "/srv",
      env,
    );
    expect(http.spec).toMatchObject({
      transport: "http",
      url: "https://tools.example.com/mcp",
      headers: {},
      credentials: {
        "header Authorization": { from: { value: "Bearer token-0123456789abcdef" }, to: { header: "Authorization" } },
      },
      maxResultBytes: 65_536,
    });
    expect(http.secrets).toEqual(["token-0123456789abcdef"]);
  });

  it("names every variable that is not set (or empty), with its place", () => {
    const { missing } = upstreamSpec(
      { mcp: "fs", command: "npx", env: { A: "${NOPE}", B: "${EMPTY}", C: "${ROOT}" } },
      "servers[2]",
      "/srv",
      env,
    );
    expect(missing).toEqual([
      "servers[2].env.A needs the environment variable NOPE, which is not set; set it where the host runs (it is read at start)",
      "servers[2].env.B needs the environment variable EMPTY, which is not set; set it where the host runs (it is read at start)",
    ]);
    const remote = upstreamSpec(
      { mcp: "remote", url: "https://${HOST_NAME}/mcp", headers: { Authorization: "Bearer ${NOPE}" } },
      "servers[3]",
      "/srv",
      env,
    );
    expect(remote.missing).toEqual([
      "servers[3].url needs the environment variable HOST_NAME, which is not set; set it where the host runs (it is read at start)",
      "servers[3].headers.Authorization needs the environment variable NOPE, which is not set; set it where the host runs (it is read at start)",
    ]);
  });

  it("takes its risk from the annotations: read-only wins, then destructive, else write", () => {
    const tool = (annotations?: Record<string, unknown>) => ({
      name: "t",
      inputSchema: { type: "object" },
      ...(annotations === undefined ? {} : { annotations }),
    });
    expect(upstreamRisk(tool({ readOnlyHint: true }))).toBe("read_only");
    expect(upstreamRisk(tool({ readOnlyHint: true, destructiveHint: true }))).toBe("read_only");
    expect(upstreamRisk(tool({ readOnlyHint: false, destructiveHint: true }))).toBe("dangerous");
    expect(upstreamRisk(tool({ destructiveHint: false }))).toBe("write");
    expect(upstreamRisk(tool())).toBe("write");
  });
});

describe("a host without a client", () => {
  it("refuses a manifest with enabled servers, saying how to give it one", async () => {
    const manifest = manifestOf({ skills: [], servers: [{ mcp: "fs", command: "npx" }] });
    const error = await buildRegistry(manifest).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HostError);
    expect((error as HostError).problems.join("\n")).toContain('client: () => import("@skillport/client/node")');
  });

  it("builds a manifest whose servers are all disabled", async () => {
    const manifest = manifestOf({ skills: [], servers: [{ mcp: "fs", command: "npx", enabled: false }] });
    const registry = await buildRegistry(manifest);
    expect(registry.servers).toEqual([]);
    await registry.close();
  });
});

// The attacks of issue 10, item 2, replayed as a client would: a `skillport serve --stdio` subprocess serving the
// files and shell skills over a scratch git repository, driven by the SDK client, every dangerous call confirmed
// by a user who accepts what the brief shows (an honest `git status`). Each attack leaves a canary file if it runs.
// A real process: what a command can read of its host (/proc/<ppid>/environ) is the subject.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { appendFile, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { sandboxAvailable } from "@skillport/core/sandbox";
import { skipWithout } from "@skillport/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Workspace } from "./workspace.js";
import { CLI, makeWorkspace, REPO } from "./workspace.js";

const SHELL = path.join(REPO, "skills/skill-shell");
const FILES = path.join(REPO, "skills/skill-files");
const HOST_SECRET = "canary-host-credential-4f9a0c7e";
const PATH = "/usr/local/bin:/usr/bin:/bin";

const sandbox = await sandboxAvailable();

type Envelope = {
  ok: boolean;
  message: string;
  // biome-ignore lint/suspicious/noExplicitAny: run_command's data, asserted field by field
  data?: any;
  error?: { code: string; field?: string };
};

describe("shell.run_command under attack, over stdio with the SDK client", () => {
  let ws: Workspace;
  let client: Client;
  let work: string;
  let repo: string;
  let stderr = "";
  const asked: string[] = [];

  beforeAll(async () => {
    ws = await makeWorkspace();
    work = path.join(ws.dir, "work");
    repo = path.join(work, "repo");
    await mkdir(repo, { recursive: true });
    execFileSync("git", ["init", "-q", repo], { env: { PATH, GIT_CONFIG_GLOBAL: "/dev/null" } });
    await writeFile(path.join(repo, "a.txt"), "a\n");
    const manifest = await ws.writeManifest(
      {
        skills: [
          { path: FILES, mcp: "files", config: { roots: ["./work"] } },
          {
            path: SHELL,
            mcp: "shell",
            allow: ["run_command"],
            config: {
              commands: ["git", "find", "tar", "cat", "sh"],
              roots: ["./work"],
              env: { PATH, GIT_AUTHOR_NAME: "T", GIT_AUTHOR_EMAIL: "t@example.com" },
              // An interpreter, as a careless manifest might allow it: the sandbox is then what keeps it in.
              policies: { sh: { arguments: "any" } },
              defaultTimeoutMs: 20_000,
            },
          },
        ],
      },
      "shell.manifest.json",
    );
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "serve", "--stdio", "--manifest", manifest],
      cwd: ws.dir,
      // The host holds a credential in its environment, as any host with a GitHub token does.
      env: {
        ...(process.env as Record<string, string>),
        SHELL_E2E_HOST_SECRET: HOST_SECRET,
        SKILLPORT_LOG_LEVEL: "warn",
      },
      stderr: "pipe",
    });
    transport.stderr?.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    client = new Client({ name: "shell-attacks", version: "0.0.0" }, { capabilities: { elicitation: { form: {} } } });
    // The user reads the brief and accepts: the brief is honest, the danger is in what git would do with it.
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.push(String((request.params as { message?: string }).message));
      return { action: "accept", content: { confirm: true } } as never;
    });
    await client.connect(transport);
  });

  afterAll(async () => {
    await client?.close();
    await ws?.dispose();
  });

  async function run(args: string[], extra: Record<string, unknown> = {}, command = "git"): Promise<Envelope> {
    const result = await client.callTool({ name: "shell.run_command", arguments: { command, args, ...extra } });
    const envelope = result.structuredContent as Envelope;
    if (envelope === undefined) throw new Error(`no structured result; server stderr:\n${stderr}`);
    return envelope;
  }

  const canary = (name: string) => path.join(work, `canary-${name}`);

  it("a planted core.fsmonitor does not run when the user confirms `git status`", async () => {
    // files.write_file now refuses .git/; an attacker with any other way to write there plants the same text.
    await appendFile(path.join(repo, ".git", "config"), `[core]\n\tfsmonitor = "touch ${canary("fsmonitor")}"\n`);
    const envelope = await run(["status"], { cwd: "repo" });
    expect(asked.at(-1)).toContain("Run git status");
    expect(envelope).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED", field: "/cwd" } });
    expect(envelope.message).toContain("core.fsmonitor");
    expect(envelope.message).toContain(path.join(".git", "config"));
    expect(existsSync(canary("fsmonitor"))).toBe(false);
    // Undo the plant so the other attacks meet the policies, not this refusal.
    execFileSync("git", ["config", "--unset", "core.fsmonitor"], { cwd: repo, env: { PATH } });
  });

  it("git -c alias.x=!cmd x is refused, and nothing runs", async () => {
    const envelope = await run(["-c", `alias.x=!touch ${canary("alias")}`, "x"], { cwd: "repo" });
    expect(envelope).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED", field: "/args/0" } });
    expect(existsSync(canary("alias"))).toBe(false);
  });

  it("find . -exec is refused, and nothing runs", async () => {
    const envelope = await run([".", "-exec", "touch", canary("find"), ";"], {}, "find");
    expect(envelope).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED", field: "/args/1" } });
    expect(existsSync(canary("find"))).toBe(false);
  });

  it("tar --checkpoint-action=exec is refused, abbreviated or not, and nothing runs", async () => {
    for (const spelling of ["--checkpoint-action", "--checkpoint-act"]) {
      const args = ["-cf", "out.tar", "--checkpoint=1", `${spelling}=exec=touch ${canary("tar")}`, "repo"];
      const envelope = await run(args, {}, "tar");
      expect(envelope).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED", field: "/args/3" } });
    }
    expect(existsSync(canary("tar"))).toBe(false);
  });

  it("cat /etc/passwd is refused: arguments naming files stay in the roots", async () => {
    const envelope = await run(["/etc/passwd"], {}, "cat");
    expect(envelope).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED", field: "/args/0" } });
    expect(JSON.stringify(envelope)).not.toContain("root:x:0");
  });

  it("ordinary work still runs, confirmed", async () => {
    const envelope = await run(["status", "--short"], { cwd: "repo" });
    expect(envelope).toMatchObject({ ok: true, data: { exitCode: 0, stdout: "?? a.txt\n" } });
  });

  // CI installs bubblewrap (.ci/run): there a missing sandbox fails these tests instead of skipping them.
  describe.skipIf(skipWithout("bubblewrap", sandbox.available))("under the sandbox", () => {
    it("is what the shell runs in (CI installs bubblewrap)", async () => {
      expect(sandbox.available, sandbox.available ? "" : sandbox.reason).toBe(true);
      expect(await run(["-c", "true"], {}, "sh")).toMatchObject({ ok: true, data: { sandboxed: true } });
    });

    it("a command reading /proc/<ppid>/environ, or any process's, finds no host credential", async () => {
      const line = 'cat /proc/$PPID/environ; for f in /proc/[0-9]*/environ; do cat "$f"; echo; done; echo done';
      const envelope = await run(["-c", line], {}, "sh");
      expect(envelope.data.stdout).not.toContain(HOST_SECRET);
      expect(envelope.data.stdout).not.toContain("SHELL_E2E_HOST_SECRET");
      expect(envelope).toMatchObject({ ok: true, data: { exitCode: 0 } });
      expect(envelope.data.stdout).toContain("done"); // it did read what it could
    });

    it("an interpreter sees only the roots: no host file outside them", async () => {
      const envelope = await run(["-c", `ls ${ws.dir}; cat ${ws.manifest} || echo unreadable`], {}, "sh");
      expect(envelope.data.stdout).toContain("work");
      expect(envelope.data.stdout).not.toContain("shell.manifest.json");
      expect(envelope.data.stdout).toContain("unreadable");
    });

    it("a setsid child is gone after the timeout", async () => {
      const marker = `${400 + Math.floor(Math.random() * 500)}.${Date.now() % 100000}`;
      const envelope = await run(["-c", `setsid sleep ${marker} & wait`], { timeoutMs: 1500 }, "sh");
      expect(envelope).toMatchObject({ ok: false, error: { code: "TIMEOUT" } });
      const sleepers = () => liveProcesses(["sleep", marker]);
      for (let i = 0; i < 200 && sleepers().length > 0; i++) await new Promise((r) => setTimeout(r, 25));
      expect(sleepers()).toEqual([]);
    });
  });
});

/** Host pids of live processes whose command line is `argv` (a sandboxed process has another pid inside). */
function liveProcesses(argv: string[]): number[] {
  return readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        const args = readFileSync(`/proc/${p}/cmdline`, "utf8").split("\0").slice(0, argv.length);
        const state = readFileSync(`/proc/${p}/stat`, "utf8").split(") ")[1]?.charAt(0);
        return (
          path.basename(args[0] ?? "") === argv[0] &&
          args.slice(1).join(" ") === argv.slice(1).join(" ") &&
          state !== "Z"
        );
      } catch {
        return false;
      }
    })
    .map(Number);
}

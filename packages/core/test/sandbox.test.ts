import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { builtinModules } from "node:module";
import os from "node:os";
import path from "node:path";
import { skipWithout } from "@skillport/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxCommandOptions } from "../src/sandbox/index.js";
import { sandboxAvailable, sandboxCommand } from "../src/sandbox/index.js";

const status = await sandboxAvailable();

describe("sandboxCommand builds a bubblewrap command line", () => {
  const base: SandboxCommandOptions = {
    bwrap: "/usr/bin/bwrap",
    command: "git",
    args: ["status", "--short"],
    cwd: "/srv/repo",
    env: { PATH: "/usr/bin:/bin", LANG: "C.UTF-8" },
    mounts: [{ path: "/srv/repo", writable: true }, { path: "/opt/tool" }],
  };

  it("isolates everything by default and passes only the given environment", () => {
    const run = sandboxCommand(base);
    expect(run.command).toBe("/usr/bin/bwrap");
    expect(run.env).toEqual({ PATH: "/usr/bin:/bin", LANG: "C.UTF-8" });
    for (const flag of ["--die-with-parent", "--new-session", "--unshare-all", "--clearenv"]) {
      expect(run.args).toContain(flag);
    }
    expect(run.args).not.toContain("--share-net");
    expect(run.args.join(" ")).toContain("--cap-drop ALL");
    expect(run.args.join(" ")).toContain("--proc /proc");
    expect(run.args.join(" ")).toContain("--setenv LANG C.UTF-8");
    expect(run.args.slice(-3)).toEqual(["git", "status", "--short"]);
    // bubblewrap would add PWD: env -i keeps the environment exact.
    expect(run.args.slice(-9)).toEqual([
      "--",
      "/usr/bin/env",
      "-i",
      "--",
      "PATH=/usr/bin:/bin",
      "LANG=C.UTF-8",
      "git",
      "status",
      "--short",
    ]);
  });

  it("mounts the given paths after the private /tmp, writable only when asked", () => {
    const args = sandboxCommand(base).args.join(" ");
    expect(args).toContain("--bind /srv/repo /srv/repo");
    expect(args).toContain("--ro-bind /opt/tool /opt/tool");
    expect(args.indexOf("--bind /srv/repo")).toBeGreaterThan(args.indexOf("--tmpfs /tmp"));
    expect(args).toContain("--chdir /srv/repo");
  });

  it("shares the network only when asked", () => {
    expect(sandboxCommand({ ...base, network: true }).args).toContain("--share-net");
  });

  it("refuses relative paths, and a missing bubblewrap, with a message saying what to do", () => {
    expect(() => sandboxCommand({ ...base, cwd: "repo" })).toThrow(/must be absolute/);
    expect(() => sandboxCommand({ ...base, mounts: [{ path: "repo" }] })).toThrow(/must be absolute/);
  });

  it("ends bubblewrap's options before the command, so a command cannot pass for one", () => {
    const args = sandboxCommand({ ...base, command: "--bind", args: ["/", "/"] }).args;
    expect(args.slice(-3)).toEqual(["--bind", "/", "/"]);
    expect(args.indexOf("--")).toBeLessThan(args.indexOf("--bind", args.indexOf("--chdir")));
  });
});

// In CI bubblewrap is installed by .ci/run: a missing sandbox there is a failure, not a skip.
describe.skipIf(skipWithout("bubblewrap", status.available))("a real sandbox", () => {
  let base: string;
  let work: string;
  let readOnly: string;
  let secret: string;

  beforeAll(async () => {
    base = await realpath(await mkdtemp(path.join(os.tmpdir(), "core-sandbox-")));
    work = path.join(base, "work");
    readOnly = path.join(base, "ro");
    secret = path.join(base, "secret");
    await Promise.all([mkdir(work), mkdir(readOnly), mkdir(secret)]);
    await writeFile(path.join(readOnly, "tool.txt"), "tool");
    await writeFile(path.join(secret, "key.txt"), "do not read");
  });
  afterAll(() => rm(base, { recursive: true, force: true }));

  it("is available here", () => {
    expect(status.available, status.available ? "" : status.reason).toBe(true);
  });

  /** Runs a shell line in the sandbox from a parent process whose own environment holds `hostEnv`. */
  function run(line: string, options: Partial<SandboxCommandOptions> = {}, hostEnv: Record<string, string> = {}) {
    const cmd = sandboxCommand({
      command: "sh",
      args: ["-c", line],
      cwd: work,
      env: { PATH: "/usr/bin:/bin" },
      mounts: [{ path: work, writable: true }, { path: readOnly }],
      ...options,
    });
    // A host process with credentials in its environment starts the sandbox, as the skillport host does.
    const host = `const { spawnSync } = require("node:child_process");
      const r = spawnSync(${JSON.stringify(cmd.command)}, ${JSON.stringify(cmd.args)}, { env: ${JSON.stringify(cmd.env)}, encoding: "utf8" });
      process.stdout.write(JSON.stringify({ status: r.status, stdout: r.stdout, stderr: r.stderr }));`;
    return new Promise<{ status: number; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, ["-e", host], {
        env: { ...process.env, ...hostEnv },
        stdio: ["ignore", "pipe", "inherit"],
      });
      let out = "";
      child.stdout.on("data", (d: Buffer) => {
        out += d.toString();
      });
      child.on("error", reject);
      child.on("close", () => resolve(JSON.parse(out)));
    });
  }

  it("runs in the given folder with exactly the given environment", async () => {
    const out = await run("pwd; env | sort", { env: { PATH: "/usr/bin:/bin", ONLY: "this" } });
    expect(out.status).toBe(0);
    expect(out.stdout.split("\n").filter(Boolean)).toEqual([work, "ONLY=this", "PATH=/usr/bin:/bin", `PWD=${work}`]);
    const exact = await run("", { command: "env", args: [], env: { PATH: "/usr/bin:/bin", ONLY: "this" } });
    expect(exact.stdout.split("\n").filter(Boolean).sort()).toEqual(["ONLY=this", "PATH=/usr/bin:/bin"]);
  });

  it("writes to a writable mount, not to a read-only one, not to /usr", async () => {
    const out = await run(`echo made > made.txt; echo x > ${readOnly}/tool.txt; echo x > /usr/pwned; echo done`);
    expect(out.stdout).toBe("done\n");
    expect(await readFile(path.join(work, "made.txt"), "utf8")).toBe("made\n");
    expect(await readFile(path.join(readOnly, "tool.txt"), "utf8")).toBe("tool");
  });

  it("does not show what is not mounted", async () => {
    const out = await run(`cat ${secret}/key.txt; ls ${base}; ls /root /home /etc`);
    expect(out.stdout).not.toContain("do not read");
    expect(out.stdout).not.toContain("secret");
    expect(out.stdout.split("\n")).not.toContain("passwd");
  });

  it("shows no host process: a parent's credentials in /proc/*/environ are out of reach", async () => {
    const canary = "canary-sandbox-8c1e0d2b";
    const out = await run(
      'for f in /proc/[0-9]*/environ; do cat "$f"; echo; done; echo "ppid=$PPID"; ls /proc | grep -c "^[0-9]"',
      {},
      { SANDBOX_TEST_CANARY: canary },
    );
    expect(out.status).toBe(0);
    expect(out.stdout).toContain("PATH=/usr/bin:/bin"); // it could read what it may: its own environment
    expect(out.stdout).not.toContain(canary);
    expect(out.stdout).not.toContain(`HOME=${process.env.HOME ?? "/"}`);
    // bubblewrap's init, the shell, and the commands of its pipeline: a handful, not the host's process table.
    expect(Number(out.stdout.trim().split("\n").at(-1))).toBeLessThan(8);
  });

  it("has no network but loopback, and no capabilities", async () => {
    const out = await run("cat /proc/net/dev; grep CapEff /proc/self/status");
    const interfaces = out.stdout
      .split("\n")
      .slice(2)
      .map((l) => l.split(":")[0]?.trim())
      .filter((n) => n && !n.startsWith("CapEff"));
    expect(interfaces).toEqual(["lo"]);
    expect(out.stdout).toMatch(/CapEff:\s+0+\n/);
  });

  it("killing bubblewrap ends every process in the sandbox, setsid and double-forked ones included", async () => {
    const marker = "313.25";
    const cmd = sandboxCommand({
      command: "sh",
      args: ["-c", `setsid sleep ${marker} & (setsid sh -c "sleep ${marker} &" ); sleep ${marker}`],
      cwd: work,
      env: { PATH: "/usr/bin:/bin" },
      mounts: [{ path: work, writable: true }],
    });
    const child = spawn(cmd.command, cmd.args, { env: cmd.env, stdio: "ignore", detached: true });
    const sleepers = () =>
      readdirSync("/proc")
        .filter((p) => /^\d+$/.test(p))
        .filter((p) => {
          try {
            const argv = readFileSync(`/proc/${p}/cmdline`, "utf8").split("\0");
            const state = readFileSync(`/proc/${p}/stat`, "utf8").split(") ")[1]?.charAt(0);
            return argv[0] === "sleep" && argv[1] === marker && state !== "Z";
          } catch {
            return false;
          }
        });
    for (let i = 0; i < 400 && sleepers().length < 3; i++) await new Promise((r) => setTimeout(r, 25));
    expect(sleepers()).toHaveLength(3);
    process.kill(-(child.pid as number), "SIGKILL");
    for (let i = 0; i < 400 && sleepers().length > 0; i++) await new Promise((r) => setTimeout(r, 25));
    expect(sleepers()).toEqual([]);
  });
});

describe("the sandbox entry", () => {
  it("is built behind its own subpath, on Node built-ins only, and the root entry does not import it", async () => {
    const sandboxJs = await readFile(new URL("../dist/sandbox.js", import.meta.url), "utf8");
    const specifiers = [...sandboxJs.matchAll(/from\s*["']([^"']+)["']/g)]
      .map((m) => m[1] as string)
      .filter((s) => !s.startsWith("."))
      .map((s) => s.replace(/^node:/, ""));
    expect(specifiers).toEqual(expect.arrayContaining(["child_process", "fs", "path"]));
    expect(specifiers.filter((s) => !builtinModules.includes(s))).toEqual([]);
    const rootJs = await readFile(new URL("../dist/index.js", import.meta.url), "utf8");
    expect(rootJs).not.toMatch(/sandbox|bwrap/);
  });
});

// The README's "Writing a skill", walked end to end as a newcomer would, in a scratch clone of this repository:
// set up, `skillport new weather`, install, build and test the new skill, enable it, lock, check, list, call, and
// then what keeps the repository green with the new skill in it: Biome and knip over the whole tree, the new
// package's typecheck (no other package's build or typecheck reads it), and every test that reads what the flow
// changed at the root, the manifest and its lock (ROOT_READERS, checked below to be complete). The other tests read
// only their own fixtures, which adding a skill cannot change, so the clone does not run them again. The clone's
// build uses this checkout's turbo cache, so only the new skill is built. One test: each step needs the one before.
// The clone carries what is not committed yet, so a user who has walked the flow already has a weather skill in it:
// the flow then scaffolds a name the tree does not use yet (weather2, …), so this test holds in a repository where
// the README was followed.
import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { toolName } from "../src/templates/skill.js";
import { REPO, runCli, runCombined } from "./workspace.js";

const exec = promisify(execFile);

/**
 * The test files that read the repository's root manifest or lock, by package: the ones a new skill in the manifest
 * can turn red. The test below checks that no other test file reads them.
 */
const ROOT_READERS: Record<string, string[]> = {
  skillport: [
    "test/default-manifest.test.ts",
    "test/docs-generated.test.ts",
    "test/docs.test.ts",
    "test/help.test.ts",
    "test/lock-files.test.ts",
    "test/names-compat.test.ts",
    "test/new-repository.test.ts",
  ],
  "@skillport/host": ["test/manifest-validator.test.ts"],
};

/** pnpm as the running script was started with (pnpm sets npm_execpath), else from PATH. */
const PNPM = process.env.npm_execpath?.includes("pnpm") ? [process.execPath, process.env.npm_execpath] : ["pnpm"];

interface Step {
  command: string;
  code: number | null;
  output: string;
}

describe("the README's authoring flow, in a scratch clone", () => {
  it("new → install → build → test → enable → lock → check → list → call → Biome, knip, typecheck and the root's tests: all green", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "skillport-authoring-"));
    const repo = path.join(dir, "repo");
    const steps: Step[] = [];
    /** Runs one command in the clone, keeping its output for the failure message only. */
    const sh = async (args: string[], check = true): Promise<Step> => {
      const [command = "", ...rest] = args[0] === "pnpm" ? [...PNPM, ...args.slice(1)] : args;
      const step = { ...(await run(command, rest, repo)), command: args.join(" ") };
      steps.push(step);
      if (check) expect(step.code, transcript(steps)).toBe(0);
      return step;
    };
    try {
      await cloneWorkingTree(repo);

      // Set up as the README's first lines do; the packages come from this machine's store (no network needed).
      const install = await sh(["pnpm", "install", "--offline", "--frozen-lockfile"], false);
      if (install.code !== 0) await sh(["pnpm", "install", "--prefer-offline", "--frozen-lockfile"]);
      await sh(["pnpm", "build"]);

      // 1. New, under a name the user's own tree does not use yet.
      const name = await unusedSkillName(repo);
      const pkg = `@skillport/skill-${name}`;
      await sh(["pnpm", "exec", "skillport", "new", name]);
      // A person's `pnpm install` updates the lockfile with the new package; under CI=true pnpm would refuse to.
      const installNew = await sh(["pnpm", "install", "--offline", "--no-frozen-lockfile"], false);
      if (installNew.code !== 0) await sh(["pnpm", "install", "--prefer-offline", "--no-frozen-lockfile"]);
      await sh(["pnpm", "--filter", pkg, "build"]);
      const tests = await sh(["pnpm", "--filter", pkg, "test"]);
      expect(tests.output).toMatch(/Tests\s+9 passed/);

      // 4. Lock and check: enable it in the manifest, as a person edits it.
      const manifestFile = path.join(repo, "skills.manifest.json");
      const manifest = await readFile(manifestFile, "utf8");
      const disabled = `"mcp": "${name}", "enabled": false`;
      expect(manifest).toContain(disabled);
      await writeFile(manifestFile, manifest.replace(disabled, `"mcp": "${name}", "enabled": true`));
      await sh(["pnpm", "exec", "skillport", "lock"]);
      await sh(["pnpm", "exec", "skillport", "check"]);
      const list = await sh(["pnpm", "exec", "skillport", "list"]);
      // Named as the manifest joins names (its "separator"), as Writing skills shows the call.
      const separator = /"separator":\s*"([^"]*)"/.exec(manifest)?.[1] ?? ".";
      const tool = `${name}${separator}${toolName(name)}`;
      expect(list.output).toContain(tool);
      if (name === "weather") {
        const page = await readFile(path.join(REPO, "docs/writing-skills.md"), "utf8");
        expect(page).toContain(`pnpm exec skillport call ${tool} '{"query":"Paris"}'`);
      }
      const call = await sh(["pnpm", "exec", "skillport", "call", tool, '{"query":"Paris"}']);
      expect(call.output).toMatch(/"ok":\s*true/);

      // The repository with the new skill in it: what pnpm lint checks that a new package can change (Biome and knip
      // over the whole tree, the new package's typecheck; no other package's build or typecheck reads it), and the
      // tests that read the root.
      await sh(["pnpm", "exec", "biome", "check", "."]);
      await sh(["pnpm", "exec", "knip"]);
      await sh(["pnpm", "--filter", "@skillport/skill-weather", "typecheck"]);
      for (const [pkg, files] of Object.entries(ROOT_READERS)) {
        await sh(["pnpm", "--filter", pkg, "exec", "vitest", "run", ...files]);
      }

      // 5. `pnpm start`, as a newcomer runs it: it says what it builds, prints no telemetry notice, serves, and one
      // Ctrl+C stops it with exit 0. Here in the clone, not in this checkout: turbo's cache restore rewrites every
      // package's build output, which the other test files are running at the same moment.
      await startAndInterrupt(repo);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 1_800_000);

  it("runs every test file that reads the root's manifest or lock", async () => {
    const readers: string[] = [];
    for (const folder of ["packages", "skills"]) {
      for (const pkg of await readdir(path.join(REPO, folder))) {
        const tests = path.join(REPO, folder, pkg, "test");
        if (!existsSync(tests)) continue;
        for (const file of await readdir(tests, { recursive: true })) {
          if (!/\.test\.ts$/.test(file) || file.endsWith("authoring-flow.test.ts")) continue;
          const text = await readFile(path.join(tests, file), "utf8");
          if (ROOT_READS.some((pattern) => pattern.test(text))) readers.push(path.join(folder, pkg, "test", file));
        }
      }
    }
    const listed = Object.entries(ROOT_READERS).flatMap(([pkg, files]) =>
      files.map((file) => path.join(pkg === "skillport" ? "packages/cli" : `packages/${pkg.split("/")[1]}`, file)),
    );
    expect(readers.sort()).toEqual(listed.sort());
  });
});

describe("the authoring flow's name for the new skill", () => {
  it("is one a tree where the README was followed does not use yet, so skillport new succeeds there", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "skillport-followed-"));
    try {
      // What the README's steps leave behind: skills/skill-weather, and its entry in the manifest.
      await mkdir(path.join(dir, "skills/skill-weather"), { recursive: true });
      await writeFile(
        path.join(dir, "skills.manifest.json"),
        '{\n  "skills": [{ "path": "./skills/skill-weather", "mcp": "weather", "enabled": true }]\n}\n',
      );
      expect((await runCli(["new", "weather"], dir)).code).toBe(1);
      const name = await unusedSkillName(dir);
      expect(name).toBe("weather2");
      const created = await runCli(["new", name], dir);
      expect(created.code, created.stderr).toBe(0);
      // A fresh clone keeps the README's own name.
      const fresh = await mkdtemp(path.join(os.tmpdir(), "skillport-fresh-"));
      await writeFile(path.join(fresh, "skills.manifest.json"), '{ "skills": [] }\n');
      expect(await unusedSkillName(fresh)).toBe("weather");
      await rm(fresh, { recursive: true, force: true });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

// --- internal ---

/** Runs `pnpm start` in `repo` until it listens, then presses Ctrl+C once, as a terminal does (the whole group). */
async function startAndInterrupt(repo: string): Promise<void> {
  // A machine where turbo never ran: it would print its telemetry notice here, unless the start script turns it off.
  const config = await mkdtemp(path.join(os.tmpdir(), "skillport-start-config-"));
  const { TURBO_TELEMETRY_DISABLED: _set, ...env } = process.env;
  const cache = await turboCacheOf(REPO);
  const [command = "pnpm", ...rest] = PNPM as string[];
  const child = spawn(command, [...rest, "start", "--port", "0"], {
    cwd: repo,
    // Its own process group, as a terminal's foreground job: Ctrl+C signals every process in it.
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...env,
      ...(cache === undefined ? {} : { TURBO_CACHE_DIR: cache }),
      XDG_CONFIG_HOME: config,
      SKILLPORT_LOG_LEVEL: "info",
      NO_COLOR: "1",
    },
  });
  let output = "";
  let listening: () => void = () => undefined;
  const listened = new Promise<void>((resolve) => {
    listening = resolve;
  });
  const add = (d: Buffer) => {
    output += d.toString();
    if (output.includes('"msg":"listening"')) listening();
  };
  child.stdout.on("data", add);
  child.stderr.on("data", add);
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  try {
    await Promise.race([listened, exit]);
    process.kill(-(child.pid as number), "SIGINT");
    expect(await exit, output).toEqual({ code: 0, signal: null });
  } finally {
    if (child.exitCode === null) process.kill(-(child.pid as number), "SIGKILL");
    await rm(config, { recursive: true, force: true });
  }
  expect(output).toMatch(/^\S+:build: cache (hit|miss)/m);
  expect(output).toContain("Skillport is serving");
  expect(output).not.toContain("anonymous telemetry"); // turbo's notice
  expect(output).not.toContain("ELIFECYCLE");
  expect(output).not.toContain("again");
  expect(output).toContain('"msg":"stopped"');
}

/**
 * The README's name, weather, unless the tree uses it already (its folder, or an entry in the manifest): then
 * weather2, weather3, … — the first one free.
 */
async function unusedSkillName(repo: string): Promise<string> {
  const manifest = await readFile(path.join(repo, "skills.manifest.json"), "utf8");
  for (let n = 1; ; n++) {
    const name = n === 1 ? "weather" : `weather${n}`;
    const taken = existsSync(path.join(repo, "skills", `skill-${name}`)) || manifest.includes(`"${name}"`);
    if (!taken) return name;
  }
}

/**
 * A `git clone` of this repository, with what is not committed yet laid over it (changed and new files that git
 * does not ignore), so that the flow runs against the code as it is now.
 */
async function cloneWorkingTree(into: string): Promise<void> {
  await exec("git", ["clone", "--quiet", "--no-hardlinks", REPO, into]);
  const { stdout } = await exec("git", ["status", "--porcelain=v1", "-z", "--untracked-files=all"], { cwd: REPO });
  const entries = stdout.split("\0").filter((e) => e !== "");
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i] as string;
    const status = entry.slice(0, 2);
    const file = entry.slice(3);
    if (status.startsWith("R") || status.startsWith("C")) i++; // the next entry is the old name
    if (status.includes("D")) await rm(path.join(into, file), { force: true });
    else {
      await mkdir(path.dirname(path.join(into, file)), { recursive: true });
      await cp(path.join(REPO, file), path.join(into, file));
    }
  }
}

/** How a test names the repository's root manifest or lock, or runs a command on them (in the root). */
const ROOT_READS = [
  /REPO, "skills\.(manifest|lock)\.json"/,
  /\.\.\/\.\.\/\.\.\/skills\.(manifest|lock)\.json/,
  /\], REPO\)/,
];

/** This checkout's turbo cache (a worktree's is its main checkout's), where `pnpm test` left every build. */
async function turboCacheOf(repo: string): Promise<string | undefined> {
  const { stdout } = await exec("git", ["rev-parse", "--path-format=absolute", "--git-common-dir"], { cwd: repo });
  const cache = path.join(path.dirname(stdout.trim()), ".turbo", "cache");
  return existsSync(cache) ? cache : undefined;
}

/** Runs a command to completion with stdout and stderr together. */
async function run(command: string, args: string[], cwd: string): Promise<Omit<Step, "command">> {
  const cache = await turboCacheOf(REPO);
  return runCombined(command, args, cwd, {
    // Shared: the clone's first build finds every package this checkout built; what it builds itself (the new skill)
    // goes into the same cache under its own hash.
    ...(cache === undefined ? {} : { TURBO_CACHE_DIR: cache }),
    TURBO_TELEMETRY_DISABLED: "1",
    NO_COLOR: "1",
    FORCE_COLOR: "0",
  });
}

/** Every step so far, and the last lines of the one that failed. */
function transcript(steps: readonly Step[]): string {
  const last = steps.at(-1);
  const tail = last?.output.split("\n").slice(-150).join("\n") ?? "";
  return `${steps.map((s) => `$ ${s.command}  → exit ${s.code}`).join("\n")}\n--- output of the last step ---\n${tail}`;
}

import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { testSkill } from "@skillport/testing";
import { register } from "../src/index.js";

// The examples run `git status --short` in repo/ and `ls -la` in the root, so both are on the allowlist, with
// echo; no interpreter is, as the README advises. The environment is spelled out, as in a manifest: the test
// passes its own PATH so the commands are found wherever this machine keeps them. Outside a git repository,
// git exits with 128, which run_command answers as a normal result.
testSkill(register, {
  async setup() {
    const dir = await mkdtemp(path.join(os.tmpdir(), "skill-shell-conformance-"));
    const root = path.join(dir, "workspace");
    await mkdir(path.join(root, "repo"), { recursive: true });
    return {
      config: {
        commands: ["git", "ls", "echo"],
        roots: [root],
        env: { PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin", LANG: "C.UTF-8", HOME: dir },
        defaultTimeoutMs: 10_000,
        maxOutputBytes: 4096,
      },
      teardown: () => rm(dir, { recursive: true, force: true }),
    };
  },
});

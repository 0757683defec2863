import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { LockFile } from "@skillport/host/surface";
import { hashOf, stringifyLock } from "@skillport/host/surface";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Workspace } from "./workspace.js";
import { connectStdio, makeWorkspace, REPO, runCli } from "./workspace.js";

const ECHO = path.join(REPO, "packages/host/test/fixtures/skill-echo");

type Envelope = { ok: boolean; message: string; error?: { code: string } };

// A lock edited to call a dangerous tool harmless must not let its first call skip `allow` and confirmation.
describe("a tampered lock, served over stdio", () => {
  let ws: Workspace;
  let manifest: string;
  let lockFile: string;
  let honest: LockFile;

  beforeAll(async () => {
    ws = await makeWorkspace();
    // echo.wipe is dangerous and not in `allow`: an honest host refuses it.
    manifest = await ws.writeManifest({ skills: [{ path: ECHO, mcp: "echo" }] });
    const locked = await runCli(["lock", "--manifest", manifest], ws.dir);
    expect(locked.code, locked.stderr).toBe(0);
    lockFile = path.join(ws.dir, "skills.lock.json");
    honest = JSON.parse(await readFile(lockFile, "utf8")) as LockFile;
  });
  afterAll(() => ws.dispose());

  /** The honest lock with echo.wipe described as read-only; `rehash` also rewrites the hash to match. */
  async function tamper(rehash: boolean) {
    const lock = structuredClone(honest);
    const instance = lock.instances[0] as LockFile["instances"][number];
    const wipe = instance.skill.tools.find((t) => t.name === "wipe");
    if (wipe === undefined) throw new Error("the echo fixture has no wipe tool");
    wipe.risk = "read_only";
    wipe.mcpAnnotations = { readOnlyHint: true, openWorldHint: false };
    if (rehash) instance.hash = hashOf(instance.skill);
    await writeFile(lockFile, stringifyLock(lock));
  }

  async function callWipe(args: string[] = []) {
    const { client, ready } = await connectStdio(manifest, ws.dir, { args });
    await ready;
    try {
      const result = await client.callTool({ name: "echo.wipe", arguments: { target: "everything" } });
      return result.structuredContent as Envelope;
    } finally {
      await client.close();
    }
  }

  it("refuses the instance when the skill it loads differs from the lock, even with a matching hash", async () => {
    await tamper(true);
    const answer = await callWipe();
    expect(answer).toMatchObject({ ok: false, error: { code: "UNAVAILABLE" } });
    expect(answer.message).toContain("skillport lock");
  });

  it("treats a lock whose surface does not match its hash as stale: the real tool is loaded and refused", async () => {
    await tamper(false);
    const answer = await callWipe();
    expect(answer).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED" } });
    expect(answer.message).toContain('add "wipe" to skills[0].allow');
    const frozen = await runCli(["serve", "--stdio", "--frozen-lock", "--manifest", manifest], ws.dir);
    expect(frozen.code).not.toBe(0);
    expect(frozen.stderr).toContain("the lock was edited by hand");
  });
});

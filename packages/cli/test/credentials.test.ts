// `skillport credentials` as an operator runs it: the built CLI in a subprocess, over a file store and over the
// state's Redis (a real redis-server), sealing with the manifest's keys; and a host in process that uses, for that
// caller, what the CLI stored. `skillport check` reports the per-caller slots and the keys without their values.
import { spawn, spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { defineSkill, defineTool } from "@skillport/core";
import { createHost, createLogger } from "@skillport/host";
import type { RedisServer } from "@skillport/test-utils";
import { skipWithout, startRedis } from "@skillport/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { upstreamClient } from "../src/upstream-client.js";
import type { Ran, Workspace } from "./workspace.js";
import { CLI, makeWorkspace, runCli } from "./workspace.js";

const KEY_NEW = randomBytes(32).toString("base64");
const KEY_OLD = randomBytes(32).toString("hex");
const ALICE_TOKEN = "ghp_alice-7f3c9e21-from-stdin";
const BOB_TOKEN = "ghp_bob-2d81b6a4-from-env";
const ENV = { KEY_NEW, KEY_OLD, SKILLPORT_LOG_LEVEL: "warn", SKILLPORT_STATE_URL: undefined };

// The hosts this file creates in process read the keys from this process's environment.
Object.assign(process.env, { KEY_NEW, KEY_OLD });

const digest = (text: string) => createHash("sha256").update(text).digest("hex");

/** A skill that answers the digest of the token it was given: the token itself would be redacted from the answer. */
const register = defineSkill({
  name: "who",
  version: "1.0.0",
  credentials: { token: { required: false, description: "the caller's token" } },
  tools: [
    defineTool({
      name: "token_digest",
      title: "Token digest",
      description: "The SHA-256 of the token this call was given.",
      input: { type: "object", properties: {}, additionalProperties: false },
      risk: "read_only",
      run: (_params, ctx) => ({ digest: ctx.token === undefined ? "none" : digest(ctx.token) }),
    }),
  ],
});

function manifestOf(keys: { id: string; env: string }[], store: unknown = { file: "./.credentials" }) {
  return {
    name: "creds",
    version: "1.0.0",
    skills: [{ package: "skill-who", mcp: "who", credentials: { token: { perCaller: true } } }],
    servers: [
      {
        mcp: "tickets",
        url: "https://tickets.example.com/mcp",
        auth: { perCaller: "oauth" },
      },
    ],
    credentials: { keys, store },
  };
}

/** util-linux's `script`: runs a command on a pseudo-terminal, as an operator's shell would. */
const hasScript = spawnSync("script", ["--version"]).status === 0;

/**
 * The built CLI on a terminal (through `script`): types `typed` once the prompt is shown, and answers everything the
 * terminal showed.
 */
function runOnTerminal(args: string[], cwd: string, typed: string, env: Record<string, string | undefined>) {
  return new Promise<{ code: number | null; screen: string }>((resolve, reject) => {
    const merged: Record<string, string | undefined> = { ...process.env, ...env };
    for (const [name, value] of Object.entries(env)) if (value === undefined) delete merged[name];
    const command = [process.execPath, CLI, ...args].map((a) => `'${a}'`).join(" ");
    const child = spawn("script", ["-qfec", command, "/dev/null"], {
      cwd,
      env: merged,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let screen = "";
    let asked = false;
    child.stdout.on("data", (d: Buffer) => {
      screen += d.toString();
      if (!asked && screen.includes("(not shown as you type)")) {
        asked = true;
        child.stdin.write(`${typed}\r`);
      }
      if (/saved|\[skillport\]/.test(screen)) child.stdin.end();
    });
    child.stderr.on("data", (d: Buffer) => {
      screen += d.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, screen }));
  });
}

function expectNoSecret(ran: Ran) {
  for (const secret of [ALICE_TOKEN, BOB_TOKEN, KEY_NEW, KEY_OLD]) {
    expect(ran.stdout).not.toContain(secret);
    expect(ran.stderr).not.toContain(secret);
  }
}

describe("skillport credentials over a file store", () => {
  let ws: Workspace;
  let manifest: string;
  const cli = (args: string[], env: Record<string, string | undefined> = {}) =>
    runCli([...args, "--manifest", manifest], ws.dir, { ...ENV, ...env });

  beforeAll(async () => {
    ws = await makeWorkspace();
    manifest = await ws.writeManifest(manifestOf([{ id: "old", env: "KEY_OLD" }]), "creds.manifest.json");
  });
  afterAll(() => ws.dispose());

  it("sets a caller's token from stdin and from a variable, and lists them without their values", async () => {
    const fromStdin = await runCli(
      ["credentials", "set", "who.token", "--caller", "token:alice", "--manifest", manifest],
      ws.dir,
      ENV,
      `${ALICE_TOKEN}\n`,
    );
    expect(fromStdin.code, fromStdin.stderr).toBe(0);
    expect(fromStdin.stdout).toContain(`saved token:alice's token for who.token`);
    const fromEnv = await cli(["credentials", "set", "who.token", "--caller", "jwt:bob", "--from-env", "BOB"], {
      BOB: BOB_TOKEN,
    });
    expect(fromEnv.code, fromEnv.stderr).toBe(0);
    const file = await readFile(path.join(ws.dir, ".credentials"), "utf8");
    expect(file).not.toContain(ALICE_TOKEN);
    expect(file).not.toContain(BOB_TOKEN);

    const listed = await cli(["credentials", "list"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/who\.token\s+jwt:bob\s+token\s+connected/);
    expect(listed.stdout).toMatch(/who\.token\s+token:alice\s+token\s+connected/);
    const json = await cli(["credentials", "list", "--json", "--slot", "who.token"]);
    expect(JSON.parse(json.stdout)).toEqual([
      expect.objectContaining({ slot: "who.token", caller: "jwt:bob", kind: "token", state: "connected" }),
      expect.objectContaining({ slot: "who.token", caller: "token:alice", kind: "token", state: "connected" }),
    ]);
    for (const ran of [fromStdin, fromEnv, listed, json]) expectNoSecret(ran);
  });

  it("is used by a host for that caller, and only for that caller", async () => {
    const host = await hostOf(manifest);
    try {
      const as = (id: string) => host.pipeline.call("who.token_digest", {}, { caller: { id, scopes: [] } });
      const alice = await as("token:alice");
      expect(alice.envelope).toMatchObject({ ok: true, data: { digest: digest(ALICE_TOKEN) } });
      const bob = await as("jwt:bob");
      expect(bob.envelope).toMatchObject({ ok: true, data: { digest: digest(BOB_TOKEN) } });
      const carol = await as("token:carol");
      expect(carol.envelope).toMatchObject({ ok: false, error: { code: "CREDENTIALS_MISSING" } });
    } finally {
      await host.close();
    }
  });

  it.skipIf(!hasScript)("asks for the token on a terminal without showing it as it is typed", async () => {
    const typed = "ghp_typed-5e0a77c3-on-a-terminal";
    const ran = await runOnTerminal(
      ["credentials", "set", "who.token", "--caller", "token:erin", "--manifest", manifest],
      ws.dir,
      typed,
      ENV,
    );
    expect(ran.code, ran.screen).toBe(0);
    expect(ran.screen).toContain("token:erin's token for who.token (not shown as you type)");
    expect(ran.screen).toContain("saved token:erin's token");
    expect(ran.screen).not.toContain(typed);
    const host = await hostOf(manifest);
    try {
      const outcome = await host.pipeline.call("who.token_digest", {}, { caller: { id: "token:erin", scopes: [] } });
      expect(outcome.envelope).toMatchObject({ ok: true, data: { digest: digest(typed) } });
    } finally {
      await host.close();
    }
    expect((await cli(["credentials", "remove", "who.token", "--caller", "token:erin"])).code).toBe(0);
  });

  it("prints its help alone, and wants --caller and a known slot", async () => {
    const bare = await runCli(["credentials"], ws.dir, ENV);
    expect(bare.code).toBe(0);
    expect(bare.stdout).toContain("skillport credentials set gh.token --caller token:alice");
    const noCaller = await cli(["credentials", "set", "who.token", "--from-env", "BOB"], { BOB: BOB_TOKEN });
    expect(noCaller.code).toBe(1);
    expect(noCaller.stderr).toContain("--caller is required");
    const unknown = await cli(["credentials", "list", "--slot", "nope.token"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("who.token, tickets.token");
  });

  it("refuses a bare caller name, an unknown slot, an OAuth slot and a value on the command line", async () => {
    const bare = await cli(["credentials", "set", "who.token", "--caller", "alice", "--from-env", "BOB"], {
      BOB: BOB_TOKEN,
    });
    expect(bare.code).toBe(1);
    expect(bare.stderr).toContain("token:<name>");
    expect(bare.stderr).toContain("jwt:<sub>");
    const unknown = await cli(["credentials", "set", "gh.token", "--caller", "token:alice"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no slot "gh.token"');
    expect(unknown.stderr).toContain("who.token");
    const oauth = await cli(["credentials", "set", "tickets.token", "--caller", "token:alice"]);
    expect(oauth.code).toBe(1);
    expect(oauth.stderr).toContain("OAuth");
    expect(oauth.stderr).toContain("servers[0].auth");
    const positional = await cli(["credentials", "set", "who.token", "--caller", "token:alice", ALICE_TOKEN]);
    expect(positional.code).not.toBe(0);
    const empty = await cli(["credentials", "set", "who.token", "--caller", "token:alice"]);
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain("empty");
  });

  it("opens a record sealed with an old key listed second, and shows it unreadable once that key is gone", async () => {
    const rotated = await ws.writeManifest(
      manifestOf([
        { id: "new", env: "KEY_NEW" },
        { id: "old", env: "KEY_OLD" },
      ]),
      "creds.manifest.json",
    );
    expect(rotated).toBe(manifest);
    const listed = await cli(["credentials", "list", "--json"]);
    expect(JSON.parse(listed.stdout).map((r: { state: string }) => r.state)).toEqual(["connected", "connected"]);
    // New records are sealed with the first key.
    const set = await cli(["credentials", "set", "who.token", "--caller", "token:dave", "--from-env", "BOB"], {
      BOB: BOB_TOKEN,
    });
    expect(set.stdout).toContain('sealed with key "new"');

    await ws.writeManifest(manifestOf([{ id: "new", env: "KEY_NEW" }]), "creds.manifest.json");
    const without = await cli(["credentials", "list"]);
    expect(without.code).toBe(0);
    expect(without.stdout).toMatch(/token:alice\s+\?\s+unreadable/);
    expect(without.stdout).toMatch(/token:dave\s+token\s+connected/);
    expect(without.stdout).toContain("2 unreadable");
    // A wrong key under the same id opens nothing either.
    const wrong = await cli(["credentials", "list", "--json"], { KEY_NEW: randomBytes(32).toString("base64") });
    expect(JSON.parse(wrong.stdout).map((r: { state: string }) => r.state)).toEqual([
      "unreadable",
      "unreadable",
      "unreadable",
    ]);
    for (const ran of [listed, set, without, wrong]) expectNoSecret(ran);
  });

  it("removes a caller's record, and says so when there is none", async () => {
    const removed = await cli(["credentials", "remove", "who.token", "--caller", "token:dave"]);
    expect(removed.code, removed.stderr).toBe(0);
    const again = await cli(["credentials", "remove", "who.token", "--caller", "token:dave"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("keeps no credential of token:dave");
    const listed = await cli(["credentials", "list", "--json"]);
    expect(JSON.parse(listed.stdout).map((r: { caller: string }) => r.caller)).not.toContain("token:dave");
  });

  it("names a key that is not set or not 32 bytes, and refuses a memory store", async () => {
    const unset = await cli(["credentials", "list"], { KEY_NEW: undefined });
    expect(unset.code).toBe(1);
    expect(unset.stderr).toContain("KEY_NEW is not set");
    const short = await cli(["credentials", "list"], { KEY_NEW: "too-short" });
    expect(short.code).toBe(1);
    expect(short.stderr).toContain("not 32 bytes");
    expect(short.stderr).not.toContain("too-short");
    const memory = await ws.writeManifest(manifestOf([{ id: "new", env: "KEY_NEW" }], "state"), "memory.manifest.json");
    const refused = await runCli(["credentials", "list", "--manifest", memory], ws.dir, ENV);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('{ "file": "./.credentials" }');
    expect(refused.stderr).toContain("Redis");
  });
});

describe("skillport check on per-caller credentials", () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await makeWorkspace();
  });
  afterAll(() => ws.dispose());

  const github = path.join(path.dirname(CLI), "../../../skills/skill-github");
  const entry = { path: github, mcp: "gh", credentials: { token: { perCaller: true } } };

  it("reports the slots, how they connect, the store and the keys, never their values", async () => {
    const manifest = await ws.writeManifest(
      {
        skills: [entry],
        credentials: { keys: [{ id: "k1", env: "KEY_NEW" }], store: { file: "./.credentials" } },
      },
      "check.manifest.json",
    );
    const text = await runCli(["check", "--manifest", manifest], ws.dir, ENV);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/gh\.token\s+skills\[0\]\.credentials\.token\s+token\s+a personal token/);
    expect(text.stdout).toContain('"k1" (env KEY_NEW) present, 32 bytes');
    const json = await runCli(["check", "--manifest", manifest, "--json"], ws.dir, ENV);
    expect(JSON.parse(json.stdout).credentials).toEqual({
      slots: [expect.objectContaining({ id: "gh.token", via: "token" })],
      keys: [{ id: "k1", source: "env KEY_NEW", ok: true }],
      store: "file ./.credentials",
    });
    expectNoSecret(text);
    expectNoSecret(json);
  });

  it("fails on a per-caller slot without credentials, and on a key that is not set", async () => {
    const bare = await ws.writeManifest({ skills: [entry] }, "bare.manifest.json");
    const noSettings = await runCli(["check", "--manifest", bare, "--json"], ws.dir, ENV);
    expect(noSettings.code).toBe(1);
    expect(JSON.parse(noSettings.stdout).findings).toContainEqual(
      expect.objectContaining({
        severity: "error",
        rule: "credentials-per-caller",
        where: "skills[0].credentials.token",
      }),
    );
    const unset = await ws.writeManifest(
      { skills: [entry], credentials: { keys: [{ id: "k1", env: "KEY_MISSING" }] } },
      "unset.manifest.json",
    );
    const noKey = await runCli(["check", "--manifest", unset], ws.dir, { ...ENV, KEY_MISSING: undefined });
    expect(noKey.code).toBe(1);
    expect(noKey.stdout).toMatch(/credentials-key\s+credentials\.keys\[0\]\s+the environment variable KEY_MISSING/);
  });
});

describe.skipIf(skipWithout("redis-server"))("skillport credentials over the state's Redis", () => {
  let redis: RedisServer;
  let ws: Workspace;
  beforeAll(async () => {
    redis = await startRedis();
    ws = await makeWorkspace();
  });
  afterAll(async () => {
    await ws?.dispose();
    await redis?.stop();
  });

  it("keeps records in Redis, where a host sharing that state uses them", async () => {
    const manifest = await ws.writeManifest(manifestOf([{ id: "k", env: "KEY_NEW" }], "state"), "redis.manifest.json");
    const env = { ...ENV, SKILLPORT_STATE_URL: redis.url };
    const set = await runCli(
      ["credentials", "set", "who.token", "--caller", "token:alice", "--manifest", manifest],
      ws.dir,
      env,
      ALICE_TOKEN,
    );
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain("Redis");
    const listed = await runCli(["credentials", "list", "--json", "--manifest", manifest], ws.dir, env);
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({ slot: "who.token", caller: "token:alice", state: "connected" }),
    ]);
    expectNoSecret(listed);

    process.env.SKILLPORT_STATE_URL = redis.url;
    const host = await hostOf(manifest).finally(() => {
      delete process.env.SKILLPORT_STATE_URL;
    });
    try {
      const outcome = await host.pipeline.call("who.token_digest", {}, { caller: { id: "token:alice", scopes: [] } });
      expect(outcome.envelope).toMatchObject({ ok: true, data: { digest: digest(ALICE_TOKEN) } });
    } finally {
      await host.close();
    }
    const removed = await runCli(
      ["credentials", "remove", "who.token", "--caller", "token:alice", "--manifest", manifest],
      ws.dir,
      env,
    );
    expect(removed.code, removed.stderr).toBe(0);
  });
});

/** A host over the test's manifest, its skill given in memory, as a replica serving it would be built. */
function hostOf(manifest: string) {
  return createHost({
    manifest,
    modules: { "skill-who": { register } },
    lock: "off",
    client: upstreamClient,
    logger: createLogger({ level: "silent" }),
  });
}

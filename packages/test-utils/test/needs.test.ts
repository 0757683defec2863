import { readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";

const log = path.join(os.tmpdir(), `skillport-test-utils-skips-${process.pid}.jsonl`);

afterEach(async () => {
  vi.unstubAllEnvs();
  vi.resetModules();
  await rm(log, { force: true });
});

/** The helper as a fresh import, read with the environment stubbed as given. */
async function needsWith(env: Record<string, string>) {
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  return import("../src/needs.js");
}

describe("skipWithout", () => {
  it("skips where the tool is missing and records why, for the summary", async () => {
    await writeFile(log, "");
    const { skipWithout } = await needsWith({ CI: "", SKILLPORT_TEST_SKIPS: log });
    expect(skipWithout("redis-server", false)).toBe(true);
    const [line] = (await readFile(log, "utf8")).trim().split("\n");
    expect(JSON.parse(line ?? "")).toEqual({
      file: expect.stringMatching(/needs\.test\.ts$/),
      reason: "no redis-server",
    });
  });

  it("does not skip in CI, where a missing tool fails the tests that need it", async () => {
    const { skipWithout } = await needsWith({ CI: "true", SKILLPORT_TEST_SKIPS: log });
    expect(skipWithout("chromium", false)).toBe(false);
    await expect(readFile(log, "utf8")).rejects.toThrow();
  });

  it("does not skip where the tool is there", async () => {
    const { skipWithout } = await needsWith({ CI: "" });
    expect(skipWithout("bubblewrap", true)).toBe(false);
  });
});

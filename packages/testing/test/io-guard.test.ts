import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { withoutIo } from "../src/io-guard.js";

describe("withoutIo", () => {
  it("lets pure code run and answers its value", () => {
    expect(withoutIo(() => "brief")).toEqual({ value: "brief", io: [] });
  });

  it("traps I/O through named imports, fetch and promises, and says which", () => {
    expect(withoutIo(() => readFileSync("/etc/hostname")).io).toEqual(["fs.readFileSync"]);
    const promised = withoutIo(() => readFile("/etc/hostname"));
    expect(promised.io).toEqual(["fs/promises.readFile"]);
    expect(withoutIo(() => fetch("http://127.0.0.1:1")).io).toEqual(["fetch"]);
  });

  it("puts everything back afterwards", () => {
    withoutIo(() => readFileSync("/nope"));
    expect(readFileSync(new URL(import.meta.url), "utf8")).toContain("puts everything back");
    expect(typeof globalThis.fetch).toBe("function");
  });
});

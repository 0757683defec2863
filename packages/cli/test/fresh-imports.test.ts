import { describe, expect, it } from "vitest";
import { freshUrl, withoutFreshQuery } from "../src/fresh-imports.js";

describe("freshUrl", () => {
  it("keeps the entry's URL before the first build, then gives each build a URL of its own", () => {
    const entry = "file:///work/skills/skill-hello/dist/index.js";
    expect(freshUrl(entry, undefined)).toBe(entry);
    expect(freshUrl(entry, 1)).toBe(`${entry}?skillport-dev=1`);
    expect(freshUrl(entry, 2)).not.toBe(freshUrl(entry, 1));
  });

  it("keeps a query the entry already has", () => {
    expect(freshUrl("file:///a/index.js?x=1", 3)).toBe("file:///a/index.js?x=1&skillport-dev=3");
  });
});

describe("withoutFreshQuery", () => {
  it("names files as they are on disk in what a person reads", () => {
    expect(withoutFreshQuery("importing file:///a/index.js?skillport-dev=12 failed")).toBe(
      "importing file:///a/index.js failed",
    );
  });
});

import { symlink } from "node:fs/promises";
import path from "node:path";
import type { TestHost } from "@skillport/testing";
import { createTestHost } from "@skillport/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { register } from "../src/index.js";
import type { VaultCopy } from "./example-vault.js";
import { copyExampleVault, PRIVATE_MARKER } from "./example-vault.js";

const PACKAGE = path.resolve(import.meta.dirname, "..");

describe("each allowed note as a resource: notes://<mcp>/<path>", () => {
  let vault: VaultCopy;
  let t: TestHost;
  beforeAll(async () => {
    vault = await copyExampleVault();
    // A link inside an allowed folder that leads to a private note.
    await symlink(path.join(vault.path, "Private", "finances.md"), path.join(vault.path, "Learning", "money.md"));
    t = await createTestHost({ skills: [{ register, config: { vault: vault.path }, dir: PACKAGE }] });
  });
  afterAll(async () => {
    await t.close();
    await vault.remove();
  });

  it("lists every note of the allowed folders, and none of the private ones", async () => {
    const uris = (await t.listResources()).map((r) => r.uri);
    expect(uris).toContain("notes://notes/AI-Agent/mcp-basics.md");
    expect(uris).toContain("notes://notes/Learning/json-schema.md");
    expect(uris.filter((u) => u.includes("Private") || u.endsWith("money.md"))).toEqual([]);
    expect(await t.listResourceTemplates()).toEqual([
      expect.objectContaining({ uriTemplate: "notes://notes/{+path}", mimeType: "text/markdown" }),
    ]);
  });

  it("reads a note as Markdown", async () => {
    const { contents } = await t.readResource("notes://notes/AI-Agent/mcp-basics.md");
    expect(contents[0]).toMatchObject({
      uri: "notes://notes/AI-Agent/mcp-basics.md",
      mimeType: "text/markdown",
      text: expect.stringContaining("MCP"),
    });
  });

  it.each([
    ["a private folder", "notes://notes/Private/finances.md"],
    ["a climb out of the vault", "notes://notes/AI-Agent/..%2F..%2F..%2Fetc%2Fpasswd.md"],
    ["a climb spelled plainly", "notes://notes/../Private/medical.md"],
    ["a link to a private note", "notes://notes/Learning/money.md"],
    ["an absolute path", "notes://notes//etc/passwd.md"],
  ])("refuses %s without a byte of it", async (_what, uri) => {
    const error = await t.readResource(uri).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error).toBeDefined();
    expect(String(error)).not.toContain(PRIVATE_MARKER);
  });

  it("completes note paths from what was typed: first those that start with it, then those that contain it", async () => {
    const completion = await t.complete(
      { uriTemplate: "notes://notes/{+path}" },
      { name: "path", value: "ai-agent/mcp" },
    );
    expect(completion.values).toEqual(["AI-Agent/mcp-basics.md", "AI-Agent/mcp-tool-design-zh.md"]);
    const containing = await t.complete({ uriTemplate: "notes://notes/{+path}" }, { name: "path", value: "generics" });
    expect(containing.values).toEqual(["Learning/typescript-generics.md"]);
    const nothing = await t.complete({ uriTemplate: "notes://notes/{+path}" }, { name: "path", value: "finances" });
    expect(nothing.values).toEqual([]);
  });

  it("serves its SKILL.md through the Skills extension", async () => {
    const uris = (await t.listResources()).map((r) => r.uri);
    expect(uris).toContain("skill://notes/notes/SKILL.md");
    const { contents } = await t.readResource("skill://notes/notes/SKILL.md");
    expect(contents[0]).toMatchObject({ mimeType: "text/markdown", text: expect.stringContaining("name: notes") });
  });
});

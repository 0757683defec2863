import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import type { HostileTree } from "@skillport/core/confine/testing";
import { CANARY, makeHostileTree } from "@skillport/core/confine/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StdioServer } from "./confine-server.js";
import { ECHO_SKILL, FILES_SKILL, NOTES_SKILL_DIR, serveStdio } from "./confine-server.js";

/** A credential of another instance: the host knows it, so files must not hand it out, whole or in slices. */
const SECRET = "sk-confine-3f9a1c7e5b2d4a6f8e0c1b3d5f7a9c2e";

let tree: HostileTree;
let server: StdioServer;

beforeAll(async () => {
  tree = await makeHostileTree();
  await mkdir(path.join(tree.root, "repo", ".git", "hooks"), { recursive: true });
  await writeFile(path.join(tree.root, "repo", ".git", "config"), "[core]\n\tbare = false\n");
  await writeFile(path.join(tree.root, "repo", "README.md"), "# repo\n");
  // The secret sits across the boundary of two slices of 4096 bytes.
  await writeFile(path.join(tree.root, "env.txt"), `${"x".repeat(4090)}${SECRET}${"y".repeat(4000)}\n`);
  // The window read_file checks around a slice is 4096 bytes each side: this secret is far from the file's start.
  await writeFile(path.join(tree.root, "far.txt"), `${"x".repeat(9000)}${SECRET}\n`);
  // A vault whose scope folder "Linked" is itself a link out of the vault.
  const vault = path.join(tree.base, "vault");
  await mkdir(path.join(vault, "AI-Agent"), { recursive: true });
  await writeFile(path.join(vault, "AI-Agent", "agent.md"), "# Agent\n\nagent notes\n");
  await symlink(tree.outside, path.join(vault, "Linked"));
  server = await serveStdio(
    tree.base,
    {
      skills: [
        { path: FILES_SKILL, mcp: "files", config: { roots: ["./root", "./root2"] } },
        { path: FILES_SKILL, mcp: "open", config: { roots: ["./root"], protectedNames: [] } },
        {
          path: NOTES_SKILL_DIR,
          mcp: "notes",
          config: { vault: "./vault", scopes: { "ai-agent": ["AI-Agent"], "all-allowed": ["AI-Agent", "Linked"] } },
        },
        { path: ECHO_SKILL, mcp: "echo", credentials: { token: { env: "CONFINE_SECRET" } }, config: { prefix: "" } },
      ],
    },
    { CONFINE_SECRET: SECRET },
  );
});

afterAll(async () => {
  await server?.close();
  await tree?.dispose();
});

describe("skillport serve --stdio: names the system refuses answer a clear error, never INTERNAL", () => {
  it.each([
    ["a 4,000-character file name (ENAMETOOLONG)", "x".repeat(4000), "ARGUMENT_INVALID"],
    ["a loop of links (ELOOP)", "loop1/x.txt", "PERMISSION_DENIED"],
    ["a file used as a folder (ENOTDIR)", "hello.txt/x.txt", "ARGUMENT_INVALID"],
  ])("%s", async (_label, name, code) => {
    for (const [tool, args] of [
      ["read_file", { path: name }],
      ["file_info", { path: name }],
      ["write_file", { path: name, content: "x", create_directories: true }],
      ["append_file", { path: name, content: "x" }],
    ] as const) {
      const answer = await server.call(`files.${tool}`, args);
      expect(answer.error, `${tool}: ${answer.message}`).toMatchObject({ code, field: "/path" });
    }
  });
});

describe("skillport serve --stdio: .git is protected from writes by default", () => {
  it.each([
    [
      "write_file into .git/config",
      "write_file",
      { path: "repo/.git/config", content: "[core]\n\tfsmonitor = x\n", overwrite: true },
    ],
    ["write_file of a hook", "write_file", { path: "repo/.git/hooks/post-checkout", content: "#!/bin/sh\n" }],
    ["append_file to .git/config", "append_file", { path: "repo/.git/config", content: "[alias]\n\tx = !sh\n" }],
    ["move_file into .git", "move_file", { source: "repo/README.md", destination: "repo/.git/hooks/pre-commit" }],
    ["move_file out of .git", "move_file", { source: "repo/.git/config", destination: "repo/config.bak" }],
    [
      "a .git file pointing elsewhere",
      "write_file",
      { path: "hello/.git", content: "gitdir: /tmp/evil\n", create_directories: true },
    ],
  ])("refuses %s with PERMISSION_DENIED", async (_label, tool, args) => {
    const answer = await server.call(`files.${tool}`, args);
    expect(answer.ok).toBe(false);
    expect(answer.error?.code, answer.message).toBe("PERMISSION_DENIED");
    expect(answer.message).toContain('".git"');
    expect(await readFile(path.join(tree.root, "repo", ".git", "config"), "utf8")).toBe("[core]\n\tbare = false\n");
  });

  it("still reads inside .git", async () => {
    const answer = await server.call("files.read_file", { path: "repo/.git/config" });
    expect(answer).toMatchObject({ ok: true, data: { content: "[core]\n\tbare = false\n" } });
  });

  it("allows the writes in an instance configured with protectedNames: []", async () => {
    const answer = await server.call("open.write_file", { path: "repo/.git/hooks/x", content: "#!/bin/sh\n" });
    expect(answer.ok, answer.message).toBe(true);
    expect(await readFile(path.join(tree.root, "repo", ".git", "hooks", "x"), "utf8")).toBe("#!/bin/sh\n");
  });
});

describe("skillport serve --stdio: read_file refuses content holding a secret the server knows", () => {
  it.each([
    ["the whole file", { path: "env.txt" }],
    ["the slice that ends inside the secret", { path: "env.txt", max_bytes: 4096 }],
    ["the slice that starts inside the secret", { path: "env.txt", offset: 4096, max_bytes: 4096 }],
    ["the slice in base64", { path: "env.txt", offset: 4096, max_bytes: 4096, encoding: "base64" }],
  ])("refuses %s, saying why and never what", async (_label, args) => {
    const answer = await server.call("files.read_file", args);
    expect(answer.error?.code, answer.message).toBe("PERMISSION_DENIED");
    expect(answer.message).toContain("secret");
    const text = JSON.stringify(answer);
    expect(text).not.toContain(SECRET.slice(0, 12));
    expect(text).not.toContain(SECRET.slice(-12));
  });

  it("still reads a part of the file far from the secret", async () => {
    const answer = await server.call("files.read_file", { path: "far.txt", offset: 0, max_bytes: 16 });
    expect(answer).toMatchObject({ ok: true, data: { content: "x".repeat(16) } });
  });
});

describe("skillport serve --stdio: a scope folder that is a link out of the vault", () => {
  it("is refused by read_note as search_notes refuses it", async () => {
    const read = await server.call("notes.read_note", { path: "Linked/secret.md" });
    expect(read.error, read.message).toMatchObject({ code: "PERMISSION_DENIED", field: "/path" });
    expect(JSON.stringify(read)).not.toContain(CANARY);
    const search = await server.call("notes.search_notes", { keyword: "secret", scope: "all-allowed" });
    expect(search.ok).toBe(true);
    expect(JSON.stringify(search)).not.toContain(CANARY);
  });
});

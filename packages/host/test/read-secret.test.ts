// readSecret is the one reader of a manifest's { "env" } / { "file" } sources: skill credentials, the confirmation
// secret and HTTP tokens all go through it, so they agree on trimming, on "empty means missing" and on own entries.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseManifest } from "../src/manifest/load-manifest.js";
import { readSecret } from "../src/manifest/read-secret.js";
import { resolveHttpConfig } from "../src/transports/http/config.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "skillport-secret-"));
  await writeFile(path.join(dir, "token"), "  from-a-file-0123456789\n");
  await writeFile(path.join(dir, "blank"), " \n");
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("readSecret", () => {
  it("reads a variable of the given environment, trimmed", async () => {
    expect(await readSecret({ env: "T" }, dir, { T: " abc \n" })).toEqual({
      value: "abc",
      where: "the environment variable T",
    });
  });

  it("reads process.env when given no environment", async () => {
    const name = "SKILLPORT_READ_SECRET_TEST";
    process.env[name] = "from-process";
    try {
      expect((await readSecret({ env: name }, dir)).value).toBe("from-process");
    } finally {
      delete process.env[name];
    }
  });

  it.each([
    ["unset", {}],
    ["empty", { T: "  " }],
  ])("calls a variable that is %s missing", async (_case, env) => {
    expect(await readSecret({ env: "T" }, dir, env)).toEqual({
      value: undefined,
      where: "the environment variable T",
      missing: "unset",
    });
  });

  it.each(["toString", "constructor", "__proto__", "hasOwnProperty"])(
    "never takes %s from the environment object's prototype",
    async (name) => {
      expect(await readSecret({ env: name }, dir, {})).toMatchObject({ value: undefined, missing: "unset" });
      expect(await readSecret({ env: name }, dir, process.env)).toMatchObject({ value: undefined, missing: "unset" });
    },
  );

  it("reads a file relative to the manifest's folder, trimmed", async () => {
    expect(await readSecret({ file: "./token" }, dir)).toEqual({
      value: "from-a-file-0123456789",
      where: `the file ${path.join(dir, "token")}`,
    });
  });

  it("tells an empty file from one it cannot read, with the error's code", async () => {
    expect(await readSecret({ file: "blank" }, dir)).toMatchObject({ value: undefined, missing: "empty" });
    expect(await readSecret({ file: "nope" }, dir)).toEqual({
      value: undefined,
      where: `the file ${path.join(dir, "nope")}`,
      missing: "unreadable",
      code: "ENOENT",
    });
  });

  it("is how the HTTP server reads its tokens: the same value, the same missing cases", async () => {
    const manifest = parseManifest(
      {
        skills: [],
        http: {
          auth: {
            tokens: [
              { name: "file", token: { file: "./token" } },
              { name: "env", token: { env: "T" } },
            ],
          },
        },
      },
      path.join(dir, "skills.manifest.json"),
    );
    const config = await resolveHttpConfig(manifest, { env: { T: "from-the-env-0123456789" } });
    expect(config.auth?.tokens.map((t) => t.secret)).toEqual([
      (await readSecret({ file: "./token" }, dir)).value,
      "from-the-env-0123456789",
    ]);
    const missing = parseManifest(
      { skills: [], http: { auth: { tokens: [{ name: "a", token: { file: "blank" } }] } } },
      path.join(dir, "skills.manifest.json"),
    );
    await expect(resolveHttpConfig(missing, { env: {} })).rejects.toThrow(
      `http.auth.tokens[0] ("a").token: the file ${path.join(dir, "blank")} is empty; write the token into it`,
    );
  });
});

import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createKeyring, readKeyring } from "../../src/credentials/keyring.js";
import { HostError } from "../../src/errors/host-error.js";
import { scratch } from "../helpers.js";

const key = () => randomBytes(32);

describe("the keyring", () => {
  it("seals a record that opens only at its own place", () => {
    const keyring = createKeyring([{ id: "k1", key: key() }]);
    const sealed = keyring.seal("ghp_secret_value", "cred:gh.token:token:alice");
    expect(sealed).not.toContain("ghp_secret_value");
    expect(sealed.startsWith("v1.k1.")).toBe(true);
    expect(keyring.open(sealed, "cred:gh.token:token:alice")).toBe("ghp_secret_value");
    // Moved under bob's place, the record does not open.
    expect(keyring.open(sealed, "cred:gh.token:token:bob")).toBeUndefined();
  });

  it("refuses a record with one byte changed, and one sealed by a key it does not hold", () => {
    const keyring = createKeyring([{ id: "k1", key: key() }]);
    const sealed = keyring.seal("value", "p");
    const parts = sealed.split(".");
    const body = Buffer.from(parts[3] ?? "", "base64url");
    body[0] = (body[0] ?? 0) ^ 1;
    parts[3] = body.toString("base64url");
    expect(keyring.open(parts.join("."), "p")).toBeUndefined();
    expect(createKeyring([{ id: "k1", key: key() }]).open(sealed, "p")).toBeUndefined();
    expect(keyring.open("not a record", "p")).toBeUndefined();
  });

  it("seals with its first key and still opens what an older key sealed (rotation)", () => {
    const old = { id: "old", key: key() };
    const sealedBefore = createKeyring([old]).seal("before", "p");
    const rotated = createKeyring([{ id: "new", key: key() }, old]);
    expect(rotated.open(sealedBefore, "p")).toBe("before");
    expect(rotated.seal("after", "p").startsWith("v1.new.")).toBe(true);
    expect(rotated.deriveWith("old", "x")).toEqual(createKeyring([old]).derive("x").key);
    expect(rotated.deriveWith("gone", "x")).toBeUndefined();
  });

  it("reads keys written as base64 or hex, and names the key and the fix when one is missing or malformed", async () => {
    const dir = await scratch("skillport-keys-");
    const bytes = key();
    await writeFile(path.join(dir, "hex.key"), `${bytes.toString("hex")}\n`);
    const { keyring, secrets } = await readKeyring(
      {
        keys: [
          { id: "b64", env: "KEY_B64" },
          { id: "hex", file: "./hex.key" },
        ],
        store: "state",
        linkTtlSeconds: 600,
      },
      dir,
      { KEY_B64: bytes.toString("base64") },
    );
    expect(keyring.currentId).toBe("b64");
    expect(keyring.open(createKeyring([{ id: "hex", key: bytes }]).seal("v", "p"), "p")).toBe("v");
    expect(secrets).toHaveLength(2);

    const error = await readKeyring(
      {
        keys: [
          { id: "a", env: "UNSET" },
          { id: "b", env: "SHORT" },
        ],
        store: "state",
        linkTtlSeconds: 600,
      },
      dir,
      { SHORT: "c2hvcnQ=" },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HostError);
    const problems = (error as HostError).problems;
    expect(problems[0]).toMatch(
      /credentials\.keys\[0\] \("a"\): the environment variable UNSET is not set; make one with: openssl rand -base64 32/,
    );
    expect(problems[1]).toMatch(/credentials\.keys\[1\] \("b"\): .* is not 32 bytes/);
    expect(String((error as Error).message)).not.toContain("c2hvcnQ=");
  });
});

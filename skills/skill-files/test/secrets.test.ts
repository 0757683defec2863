import { writeFile as putFile } from "node:fs/promises";
import path from "node:path";
import { failure } from "@skillport/test-utils";
import { mockContext } from "@skillport/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFile } from "../src/index.js";
import type { Sandbox } from "./helpers.js";
import { makeSandbox } from "./helpers.js";

const SECRET = "ghp_confineTestSecret0123456789abcdefABCD";
let box: Sandbox;
let ctx: ReturnType<typeof mockContext<Sandbox["config"]>>;

beforeAll(async () => {
  box = await makeSandbox();
  ctx = mockContext({ config: box.config, secrets: [SECRET] });
  // The secret straddles byte 8192: a reader asking for two slices of 8192 gets half of it in each.
  const before = "a".repeat(8192 - 20);
  await putFile(path.join(box.root, "env.txt"), `${before}${SECRET}${"b".repeat(20000)}\n`);
});

afterAll(async () => {
  await box.dispose();
});

const read = (args: { offset?: number; max_bytes?: number; encoding?: "utf-8" | "base64" }) =>
  readFile(
    { path: "env.txt", encoding: args.encoding ?? "utf-8", offset: args.offset ?? 0, max_bytes: args.max_bytes },
    ctx,
  );

describe("read_file and the secrets the server knows", () => {
  it.each([
    ["the whole file", {}],
    ["the first slice, which ends inside the secret", { max_bytes: 8192 }],
    ["the second slice, which starts inside the secret", { offset: 8192, max_bytes: 8192 }],
    ["the second slice as base64", { offset: 8192, max_bytes: 8192, encoding: "base64" as const }],
    ["a small slice just before the secret", { offset: 8000, max_bytes: 100 }],
    ["a small slice just after the secret", { offset: 8192 + 30, max_bytes: 100 }],
  ])("refuses %s with PERMISSION_DENIED, saying why and never what", async (_label, args) => {
    const error = await failure(read(args));
    expect(error).toMatchObject({ code: "PERMISSION_DENIED", field: "/path" });
    expect(error.message).toContain("holds a secret this server knows (as plain text)");
    expect(error.message).not.toContain(SECRET.slice(0, 8));
  });

  it("reads the parts further than 4096 bytes from it", async () => {
    const start = await read({ offset: 0, max_bytes: 1024 });
    expect(start.data.content).toBe("a".repeat(1024));
    const end = await read({ offset: 8192 + 30 + 4096, max_bytes: 1024 });
    expect(end.data.content).toBe("b".repeat(1024));
  });

  it("reads everything when no secret is known", async () => {
    const out = await readFile({ path: "env.txt", encoding: "utf-8", offset: 0 }, mockContext({ config: box.config }));
    expect(out.data.content).toContain(SECRET);
  });
});

import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { mockContext } from "../src/mock-context.js";

const TOKEN = "ghp_T3stT0kenF0rM0ckC0ntextXyZ0123456789";
const OTHER = "another-instance-secret-42";

describe("mockContext's findSecret, as the host finds secrets", () => {
  const ctx = mockContext({ token: TOKEN, secrets: [OTHER] });
  const b64 = (text: string) => Buffer.from(text).toString("base64");

  it.each([
    ["plain", `token: ${TOKEN}`, "plain"],
    ["base64 of a file holding it", b64(`# .env\nGITHUB_TOKEN=${TOKEN}\n`), "base64"],
    ["base64url at another offset", Buffer.from(`xx${OTHER}??`).toString("base64url"), "base64url"],
    ["hex", Buffer.from(OTHER).toString("hex").toUpperCase(), "hex"],
    ["URL-encoded", `?t=${encodeURIComponent(`${OTHER}/`)}`, "plain"],
    ["HTML entities", [...TOKEN].map((c) => `&#${c.charCodeAt(0)};`).join(""), "html"],
    ["split across lines", `${TOKEN.slice(0, 20)}\n    ${TOKEN.slice(20)}`, "plain"],
    ["cut at the end of a slice", `GITHUB_TOKEN=${TOKEN.slice(0, 10)}`, "plain"],
  ])("finds it %s", async (_case, content, form) => {
    expect(await ctx.findSecret(content)).toEqual({ form });
  });

  it("finds its UTF-8 bytes inside binary content", async () => {
    const content = new Uint8Array(Buffer.concat([randomBytes(2048), Buffer.from(OTHER), randomBytes(2048)]));
    expect(await ctx.findSecret(content)).toEqual({ form: "plain" });
  });

  it("finds nothing in content without a secret, and nothing when the context knows none", async () => {
    expect(await ctx.findSecret("the token is ghp_ followed by 36 characters")).toBeUndefined();
    expect(await ctx.findSecret(randomBytes(4096))).toBeUndefined();
    expect(await mockContext().findSecret(TOKEN)).toBeUndefined();
  });
});

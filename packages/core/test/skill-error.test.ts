import { describe, expect, it } from "vitest";
import type { ErrorCode } from "../src/index.js";
import { ERROR_CODES, isSkillError, SkillError } from "../src/index.js";

const RETRYABLE_BY_DEFAULT: Record<ErrorCode, boolean> = {
  ARGUMENT_INVALID: true,
  NOT_FOUND: false,
  PERMISSION_DENIED: false,
  CONFLICT: false,
  CONFIRMATION_REQUIRED: true,
  CREDENTIALS_MISSING: false,
  RATE_LIMITED: true,
  TIMEOUT: true,
  CANCELLED: false,
  UPSTREAM_ERROR: true,
  UNAVAILABLE: true,
  INTERNAL: false,
};

describe("SkillError", () => {
  it("the retryable table covers every error code", () => {
    expect(Object.keys(RETRYABLE_BY_DEFAULT).sort()).toEqual([...ERROR_CODES].sort());
  });

  it.each(ERROR_CODES.map((code) => [code, RETRYABLE_BY_DEFAULT[code]] as const))(
    "%s is retryable by default: %s",
    (code, retryable) => {
      expect(new SkillError({ code, message: "m" }).retryable).toBe(retryable);
    },
  );

  it.each(ERROR_CODES)("%s takes an explicit retryable either way", (code) => {
    expect(new SkillError({ code, message: "m", retryable: true }).retryable).toBe(true);
    expect(new SkillError({ code, message: "m", retryable: false }).retryable).toBe(false);
  });

  it("keeps code, message, field, status and cause", () => {
    const cause = new Error("socket hang up");
    const error = new SkillError({
      code: "UPSTREAM_ERROR",
      message: "GitHub answered 502",
      field: "/repo",
      status: 502,
      cause,
    });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe("SkillError");
    expect(error.code).toBe("UPSTREAM_ERROR");
    expect(error.message).toBe("GitHub answered 502");
    expect(error.field).toBe("/repo");
    expect(error.status).toBe(502);
    expect(error.cause).toBe(cause);
  });

  it("leaves field, status and cause undefined when not given", () => {
    const error = new SkillError({ code: "NOT_FOUND", message: "no such note" });
    expect(error.field).toBeUndefined();
    expect(error.status).toBeUndefined();
    expect("cause" in error).toBe(false);
  });
});

describe("isSkillError", () => {
  it("is true for a SkillError", () => {
    expect(isSkillError(new SkillError({ code: "TIMEOUT", message: "too slow" }))).toBe(true);
  });

  it.each(ERROR_CODES)("is true for a look-alike from another copy of the package with code %s", (code) => {
    const lookAlike = Object.assign(new Error("from another copy"), { name: "SkillError", code });
    expect(isSkillError(lookAlike)).toBe(true);
  });

  it.each<[string, unknown]>([
    ["a plain Error", new Error("boom")],
    ["a TypeError", new TypeError("boom")],
    ["an Error with a code but another name", Object.assign(new Error("x"), { code: "NOT_FOUND" })],
    [
      "a SkillError look-alike with an unknown code",
      Object.assign(new Error("x"), { name: "SkillError", code: "NOPE" }),
    ],
    [
      "a SkillError look-alike with a lower-case code",
      Object.assign(new Error("x"), { name: "SkillError", code: "not_found" }),
    ],
    ["a SkillError look-alike without a code", Object.assign(new Error("x"), { name: "SkillError" })],
    ["a SkillError look-alike with a numeric code", Object.assign(new Error("x"), { name: "SkillError", code: 404 })],
    ["a plain object shaped like a SkillError", { name: "SkillError", code: "NOT_FOUND", message: "x" }],
    ["a string", "SkillError"],
    ["null", null],
    ["undefined", undefined],
  ])("is false for %s", (_label, value) => {
    expect(isSkillError(value)).toBe(false);
  });
});

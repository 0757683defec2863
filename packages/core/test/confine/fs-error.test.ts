import { describe, expect, it } from "vitest";
import { errnoOf, fsError, printablePath } from "../../src/confine/index.js";
import { isSkillError, SkillError } from "../../src/index.js";

const errno = (code: string) => Object.assign(new Error(`${code}: failed`), { code });

describe("fsError", () => {
  it.each([
    ["ENOENT", "NOT_FOUND", "/path"],
    ["EEXIST", "CONFLICT", "/path"],
    ["ENOTEMPTY", "CONFLICT", "/path"],
    ["EISDIR", "ARGUMENT_INVALID", "/path"],
    ["ENOTDIR", "ARGUMENT_INVALID", "/path"],
    ["ENAMETOOLONG", "ARGUMENT_INVALID", "/path"],
    ["EXDEV", "ARGUMENT_INVALID", "/path"],
    ["EINVAL", "ARGUMENT_INVALID", "/path"],
    ["EFBIG", "ARGUMENT_INVALID", "/path"],
    ["ENXIO", "ARGUMENT_INVALID", "/path"],
    ["ELOOP", "PERMISSION_DENIED", "/path"],
    ["EACCES", "PERMISSION_DENIED", "/path"],
    ["EPERM", "PERMISSION_DENIED", "/path"],
    ["EROFS", "PERMISSION_DENIED", "/path"],
    ["ENOSPC", "UNAVAILABLE", undefined],
    ["EMFILE", "UNAVAILABLE", undefined],
    ["EBUSY", "UNAVAILABLE", undefined],
    ["EIO", "UNAVAILABLE", undefined],
    ["ESTALE", "UNAVAILABLE", undefined],
  ])("maps %s to %s", (code, expected, field) => {
    const mapped = fsError(errno(code), { path: "a\nb.txt", field: "/path" });
    expect(isSkillError(mapped)).toBe(true);
    expect(mapped).toMatchObject({ code: expected, field });
    expect((mapped as SkillError).message).toContain('"a\\x0ab.txt"');
    expect((mapped as SkillError).cause).toBeInstanceOf(Error);
  });

  it("passes through a SkillError, an abort and an error without a system code", () => {
    const skill = new SkillError({ code: "NOT_FOUND", message: "x" });
    const abort = new DOMException("aborted", "AbortError");
    const bug = new TypeError("undefined is not a function");
    for (const error of [skill, abort, bug]) expect(fsError(error, { path: "x", field: "/p" })).toBe(error);
    expect(
      fsError(Object.assign(new Error(), { code: "ERR_INVALID_ARG_TYPE" }), { path: "x", field: "/p" }),
    ).not.toSatisfy(isSkillError);
  });

  it("reads the code of a system error", () => {
    expect(errnoOf(errno("ENOENT"))).toBe("ENOENT");
    expect(errnoOf(new Error("x"))).toBeUndefined();
    expect(errnoOf(undefined)).toBeUndefined();
  });
});

describe("printablePath", () => {
  it("shows control and bidirectional characters as escapes and clips long paths", () => {
    expect(printablePath("a\0b\u001b[31m\u202ec")).toBe("a\\x00b\\x1b[31m\\u{202e}c");
    expect(printablePath("x".repeat(300))).toBe(`${"x".repeat(200)}…`);
  });
});

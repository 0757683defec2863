import { describe, expect, it } from "vitest";
import { failure } from "../src/failure.js";

class SkillError extends Error {
  override name = "SkillError" as const;
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

describe("failure", () => {
  it("returns the SkillError a call failed with", async () => {
    const error = await failure(Promise.reject(new SkillError("NOT_FOUND", "no such note")));
    expect(error).toMatchObject({ code: "NOT_FOUND", message: "no such note" });
  });

  it("rethrows anything else as it is", async () => {
    const other = new TypeError("boom");
    await expect(failure(Promise.reject(other))).rejects.toBe(other);
  });

  it("fails when the call succeeds", async () => {
    await expect(failure(Promise.resolve(1))).rejects.toThrow("the call should have failed");
  });
});

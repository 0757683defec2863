import { expect } from "vitest";

/** A SkillError as a test reads it (structurally: this package depends on no Skillport package). */
export interface ThrownSkillError extends Error {
  name: "SkillError";
  code: string;
  field?: string;
  retryable: boolean;
  status?: number;
}

/**
 * Awaits a call expected to fail with a SkillError and returns the error; anything else it throws is rethrown as it
 * is, so its own message and stack show.
 *
 * @example
 * expect(await failure(readNote({ path: "../x.md" }, ctx))).toMatchObject({ code: "PERMISSION_DENIED" });
 */
export async function failure(call: Promise<unknown>): Promise<ThrownSkillError> {
  let thrown: unknown;
  try {
    await call;
  } catch (error) {
    thrown = error;
  }
  expect(thrown, "the call should have failed").toBeDefined();
  if (!(thrown instanceof Error) || thrown.name !== "SkillError") throw thrown;
  return thrown as ThrownSkillError;
}

import type { SkillContext } from "@skillport/core";
import { isSkillError } from "@skillport/core";
import { mockContext } from "@skillport/testing";
import { expect } from "vitest";
import { GithubConfig, register } from "../src/index.js";

/**
 * A context as the host builds one (the testing kit's mockContext): the instance's config, and its mocked token
 * held as the host holds it, so ctx.fetch adds it for the API's origin and the skill never sees it.
 */
export function ctxFor(
  config: Partial<GithubConfig> & { apiBaseUrl: string },
  options: { token?: string; signal?: AbortSignal } = {},
): SkillContext<GithubConfig> {
  return mockContext({
    skill: register,
    config: GithubConfig.parse(config),
    ...(options.token === undefined ? {} : { token: options.token }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
}

/** Awaits a call expected to fail with a SkillError and returns it. */
export async function failure(call: Promise<unknown>) {
  let thrown: unknown;
  try {
    await call;
  } catch (error) {
    thrown = error;
  }
  expect(thrown, "the call should have failed").toBeDefined();
  if (!isSkillError(thrown)) throw thrown;
  return thrown;
}

import type { SkillContext } from "@skillport/core";
import { isSkillError } from "@skillport/core";
import { mockContext } from "@skillport/testing";
import { expect } from "vitest";
import { GithubConfig } from "../src/index.js";

/** A context as the host builds one: the instance's config and its mocked token (the testing kit's mockContext). */
export function ctxFor(
  config: Partial<GithubConfig> & { apiBaseUrl: string },
  options: { token?: string; signal?: AbortSignal } = {},
): SkillContext<GithubConfig> {
  return mockContext({
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

import type { SkillContext } from "@skillport/core";
import { mockContext } from "@skillport/testing";
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

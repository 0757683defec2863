import { testSkill } from "@skillport/testing";
import { register } from "../src/index.js";
import { startFakeGithub } from "./fake-github.js";

// The examples run against the fake GitHub API on 127.0.0.1 (plain http is allowed on a loopback address), so
// no network is needed: search_repos and get_issue get realistic answers, create_issue previews in acme/website
// (on the allowlist) and its real call is refused by the fake server, as GitHub refuses an unknown token (the
// suite's canary), which must not appear in the answer.
testSkill(register, {
  async setup() {
    const github = await startFakeGithub({ prefix: "/api/v3" });
    return {
      config: {
        apiBaseUrl: github.url,
        repos: ["acme/website"],
        readRepos: ["octocat/*"],
        requestTimeoutMs: 5000,
      },
      teardown: () => github.close(),
    };
  },
});

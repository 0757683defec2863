import { testSkill } from "@skillport/testing";
import { expect } from "vitest";
import { register } from "../src/index.js";
import { startFakeGithub } from "./fake-github.js";

// The examples run against the fake GitHub API on 127.0.0.1 (plain http is allowed on a loopback address), so no
// network is needed: search_repos and get_issue get realistic answers, create_issue previews an issue in
// acme/website (on the allowlist), and its real call is refused the way GitHub refuses an unknown token (the
// suite's canary), which must not show in the answer. The teardown checks that the examples reached the fake.
testSkill(register, {
  async setup() {
    const github = await startFakeGithub({ prefix: "/api/v3" });
    const teardown = async () => {
      const seen = github.requests.map((r) => `${r.method} ${new URL(r.url, "http://fake").pathname}`);
      await github.close();
      expect(seen).toEqual(
        expect.arrayContaining([
          "GET /search/repositories",
          "GET /repos/octocat/Hello-World/issues/1347",
          "POST /repos/acme/website/issues",
        ]),
      );
    };
    return {
      config: { apiBaseUrl: github.url, repos: ["acme/website"], readRepos: ["octocat/*"], requestTimeoutMs: 5000 },
      teardown,
    };
  },
});

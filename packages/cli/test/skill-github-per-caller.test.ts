// The bundled GitHub skill with a token per caller: alice's calls reach the GitHub API (a small stand-in on
// loopback that says whose token it saw) with alice's token, bob's with bob's, and a caller who connected none is
// answered CREDENTIALS_MISSING without a request to GitHub. The token is held by the host (ctx.fetch) throughout.
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HttpInProcess } from "./in-process.js";
import { httpInProcess } from "./in-process.js";
import type { Workspace } from "./workspace.js";
import { connectAs, makeWorkspace, REPO } from "./workspace.js";

type Envelope = { ok: boolean; message: string; data?: { items: { description: string }[] }; error?: { code: string } };

const GITHUB_TOKENS: Record<string, string> = {
  ghp_alice000000000000000000000000000000001: "alice",
  ghp_bob00000000000000000000000000000000002: "bob",
};

describe("skill-github with each caller's own token", () => {
  let api: Server;
  let apiUrl = "";
  const seen: string[] = [];
  let ws: Workspace;
  let served: HttpInProcess;
  const clients: Record<string, Client> = {};

  beforeAll(async () => {
    api = createServer((req, res) => {
      const auth = req.headers.authorization ?? "";
      seen.push(auth);
      const login = GITHUB_TOKENS[auth.replace(/^Bearer /, "")];
      if (login === undefined) {
        res.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ message: "Bad credentials" }));
        return;
      }
      const item = {
        full_name: `${login}/dotfiles`,
        description: `seen as ${login}`,
        html_url: `https://github.com/${login}/dotfiles`,
        stargazers_count: 1,
        forks_count: 0,
        language: "Shell",
        updated_at: "2026-12-01T00:00:00Z",
      };
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ total_count: 1, incomplete_results: false, items: [item] }));
    });
    await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
    apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
    ws = await makeWorkspace();
    const manifest = await ws.writeManifest({
      name: "github-per-caller",
      skills: [
        {
          path: path.join(REPO, "skills/skill-github"),
          mcp: "gh",
          config: { apiBaseUrl: apiUrl },
          credentials: { token: { perCaller: true } },
        },
      ],
      http: {
        auth: {
          tokens: ["alice", "bob", "carol"].map((name) => ({ name, token: { env: `${name.toUpperCase()}_BEARER` } })),
        },
      },
      credentials: { keys: [{ id: "k1", env: "SKILLPORT_CREDENTIALS_KEY" }], store: { file: "./.credentials" } },
      audit: { file: "./audit.log" },
    });
    served = await httpInProcess(manifest, {
      env: {
        ALICE_BEARER: "alice-bearer-0123456789",
        BOB_BEARER: "bob-bearer-0123456789",
        CAROL_BEARER: "carol-bearer-0123456789",
        SKILLPORT_CREDENTIALS_KEY: randomBytes(32).toString("hex"),
      },
      lock: "off",
    });
    const vault = served.host.credentials?.vault;
    for (const [token, login] of Object.entries(GITHUB_TOKENS)) {
      await vault?.put("gh.token", `token:${login}`, { kind: "token", value: token, savedAt: 1 });
    }
    for (const name of ["alice", "bob", "carol"]) {
      clients[name] = await connectAs(served.url, `${name}-bearer-0123456789`, name);
    }
  });

  afterAll(async () => {
    for (const client of Object.values(clients)) await client.close().catch(() => undefined);
    await served?.close();
    await new Promise((resolve) => api?.close(resolve));
    await ws?.dispose();
  });

  const search = async (who: string) =>
    (await (clients[who] as Client).callTool({ name: "gh.search_repos", arguments: { query: "dotfiles" } }))
      .structuredContent as Envelope;

  it("calls GitHub with the caller's own token", async () => {
    const answers = await Promise.all(
      ["alice", "bob", "alice", "bob"].map(async (who) => ({ who, env: await search(who) })),
    );
    for (const { who, env } of answers) {
      expect(env.ok, env.message).toBe(true);
      expect(env.data?.items[0]?.description).toBe(`seen as ${who}`);
    }
    expect(new Set(seen)).toEqual(new Set(Object.keys(GITHUB_TOKENS).map((t) => `Bearer ${t}`)));
  });

  it("asks a caller without a token to connect one, and sends nothing to GitHub", async () => {
    const before = seen.length;
    const answer = await search("carol");
    expect(answer.error?.code).toBe("CREDENTIALS_MISSING");
    expect(seen.length).toBe(before);
  });
});

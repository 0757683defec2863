import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** A request the fake server received. */
interface Recorded {
  method: string;
  /** Path and query, without the mount prefix. */
  url: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

/** A canned answer, to force a status the routes would not give. */
export interface Canned {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Never answer: the request hangs until the client gives up. */
  hang?: boolean;
}

/**
 * A small GitHub REST API on 127.0.0.1 (ephemeral port) with realistic answers: search, read and create issues,
 * rate-limit headers, and GitHub's error bodies. `failNext` forces the next answer; `requests` records every call.
 */
export interface FakeGithub {
  /** The API root to configure, including the mount prefix. */
  url: string;
  requests: Recorded[];
  /** The token the server accepts for writes. */
  token: string;
  failNext(canned: Canned): void;
  /** Resolves when a request the server leaves hanging (`failNext({ hang: true })`) has arrived. */
  hanging(): Promise<void>;
  /** Resolves when a request was aborted by the client (its socket closed before an answer). */
  aborted(): Promise<void>;
  close(): Promise<void>;
}

export const VALID_TOKEN = "ghp_FAKEtoken0000000000000000000000000001";

const DOCS = "https://docs.github.com/rest";

/** READMEs the fake serves, by lower-case `owner/name`. */
const README: Record<string, string> = {
  "octocat/hello-world": "# Hello World\n\nMy first repository on GitHub!\n",
  "acme/mcp-server":
    "# acme/mcp-server\n\nAn MCP server. Configure it with ghp_FAKEtoken0000000000000000000000000001 (an echoed secret).\n",
};

export async function startFakeGithub(options: { prefix?: string } = {}): Promise<FakeGithub> {
  const prefix = options.prefix ?? "";
  const requests: Recorded[] = [];
  const canned: Canned[] = [];
  const abortWaiters: (() => void)[] = [];
  const hangWaiters: (() => void)[] = [];
  const issues = new Map<string, Record<string, unknown>>();
  let nextNumber = 100;
  const seed = (repo: string, number: number, extra: Record<string, unknown> = {}) =>
    issues.set(`${repo.toLowerCase()}#${number}`, issueJson(repo, number, extra));
  seed("octocat/Hello-World", 1347, {
    title: "Found a bug",
    body: "I'm having a problem with this.",
    labels: [label("bug")],
  });
  seed("octocat/Hello-World", 1348, { title: "Fix the bug", pull_request: { url: "https://api.github.com/pr/1348" } });
  seed("octocat/Hello-World", 1200, { state: "closed", state_reason: "completed", closed_at: "2026-01-02T03:04:05Z" });

  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    const url = (req.url ?? "/").startsWith(prefix) ? (req.url ?? "/").slice(prefix.length) : "/not-mounted";
    requests.push({ method: req.method ?? "GET", url, headers: req.headers, body });
    const forced = canned.shift();
    if (forced !== undefined) {
      if (forced.hang) {
        req.socket.on("close", () => {
          for (const wake of abortWaiters.splice(0)) wake();
        });
        for (const wake of hangWaiters.splice(0)) wake();
        return;
      }
      send(res, forced.status, forced.body ?? {}, forced.headers);
      return;
    }
    route(req.method ?? "GET", url, req.headers, body, res);
  });

  function route(method: string, url: string, headers: IncomingHttpHeaders, body: unknown, res: ServerResponse) {
    const { pathname, searchParams } = new URL(url, "http://fake");
    const auth = headers.authorization;
    if (auth !== undefined && auth !== `Bearer ${VALID_TOKEN}`) {
      return send(res, 401, { message: "Bad credentials", documentation_url: DOCS, status: "401" });
    }
    if (method === "GET" && pathname === "/search/repositories") {
      const q = searchParams.get("q") ?? "";
      const perPage = Number(searchParams.get("per_page") ?? "30");
      const all = ["octocat/Hello-World", "acme/mcp-server", "acme/website"].map(repoJson);
      const words = q
        .replace(/language:"[^"]*"/, "")
        .trim()
        .toLowerCase()
        .split(/\s+/);
      const hits = all.filter((r) => words.every((w) => w === "" || String(r.full_name).toLowerCase().includes(w)));
      return send(res, 200, { total_count: hits.length, incomplete_results: false, items: hits.slice(0, perPage) });
    }
    const readme = /^\/repos\/([^/]+)\/([^/]+)\/readme$/.exec(pathname);
    if (method === "GET" && readme !== null) {
      const repo = decodeURIComponent(`${readme[1]}/${readme[2]}`);
      const text = README[repo.toLowerCase()];
      if (text === undefined) return send(res, 404, { message: "Not Found", documentation_url: DOCS, status: "404" });
      return send(res, 200, {
        type: "file",
        encoding: "base64",
        name: "README.md",
        path: "README.md",
        size: Buffer.byteLength(text),
        content: Buffer.from(text)
          .toString("base64")
          .replace(/(.{60})/g, "$1\n"),
        html_url: `https://github.com/${repo}/blob/main/README.md`,
      });
    }
    if (method === "GET" && pathname === "/user/starred") {
      if (auth === undefined) {
        return send(res, 401, { message: "Requires authentication", documentation_url: DOCS, status: "401" });
      }
      return send(res, 200, ["acme/mcp-server", "octocat/Hello-World"].map(repoJson));
    }
    const issue = /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)$/.exec(pathname);
    if (method === "GET" && issue !== null) {
      const found = issues.get(`${decodeURIComponent(`${issue[1]}/${issue[2]}`).toLowerCase()}#${issue[3]}`);
      if (found === undefined) return send(res, 404, { message: "Not Found", documentation_url: DOCS, status: "404" });
      return send(res, 200, found);
    }
    const create = /^\/repos\/([^/]+)\/([^/]+)\/issues$/.exec(pathname);
    if (method === "POST" && create !== null) {
      if (auth === undefined) {
        return send(res, 401, { message: "Requires authentication", documentation_url: DOCS, status: "401" });
      }
      const input = body as { title?: unknown; body?: unknown; labels?: unknown };
      if (typeof input?.title !== "string" || input.title === "") {
        return send(res, 422, {
          message: "Validation Failed",
          errors: [{ resource: "Issue", code: "missing_field", field: "title" }],
          documentation_url: DOCS,
          status: "422",
        });
      }
      const repo = decodeURIComponent(`${create[1]}/${create[2]}`);
      const number = nextNumber++;
      const labels = Array.isArray(input.labels) ? input.labels.map((l) => label(String(l))) : [];
      seed(repo, number, { title: input.title, body: input.body ?? null, labels });
      return send(res, 201, issues.get(`${repo.toLowerCase()}#${number}`), {
        location: `https://api.github.com/repos/${repo}/issues/${number}`,
      });
    }
    return send(res, 404, { message: "Not Found", documentation_url: DOCS, status: "404" });
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${prefix}`,
    requests,
    token: VALID_TOKEN,
    failNext: (c) => canned.push(c),
    hanging: () => new Promise((resolve) => hangWaiters.push(resolve)),
    aborted: () => new Promise((resolve) => abortWaiters.push(resolve)),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// --- internal ---

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const reset = Math.floor(Date.now() / 1000) + 3600;
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "x-github-api-version-selected": "2022-11-28",
    "x-ratelimit-limit": "5000",
    "x-ratelimit-remaining": "4999",
    "x-ratelimit-reset": String(reset),
    "x-ratelimit-used": "1",
    "x-ratelimit-resource": "core",
    ...headers,
  });
  res.end(typeof body === "string" ? body : JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function user(login: string) {
  return {
    login,
    id: 583231,
    node_id: "MDQ6VXNlcjU4MzIzMQ==",
    avatar_url: `https://avatars.githubusercontent.com/u/583231?v=4`,
    url: `https://api.github.com/users/${login}`,
    html_url: `https://github.com/${login}`,
    type: "User",
    site_admin: false,
  };
}

function label(name: string) {
  return {
    id: 208045946,
    node_id: "MDU6TGFiZWwyMDgwNDU5NDY=",
    url: `https://api.github.com/repos/octocat/Hello-World/labels/${name}`,
    name,
    description: null,
    color: "f29513",
    default: name === "bug",
  };
}

function issueJson(repo: string, number: number, extra: Record<string, unknown>) {
  return {
    url: `https://api.github.com/repos/${repo}/issues/${number}`,
    repository_url: `https://api.github.com/repos/${repo}`,
    html_url: `https://github.com/${repo}/issues/${number}`,
    id: 1000000 + number,
    node_id: "MDU6SXNzdWUx",
    number,
    title: "An issue",
    user: user("octocat"),
    labels: [],
    state: "open",
    locked: false,
    assignee: null,
    assignees: [user("hubot")],
    milestone: null,
    comments: 3,
    created_at: "2026-01-01T00:00:00Z",
    updated_at: "2026-01-05T00:00:00Z",
    closed_at: null,
    author_association: "OWNER",
    active_lock_reason: null,
    body: null,
    reactions: { url: "", total_count: 0, "+1": 0, "-1": 0 },
    state_reason: null,
    ...extra,
  };
}

function repoJson(fullName: string) {
  const [owner = "", name = ""] = fullName.split("/");
  return {
    id: 1296269,
    node_id: "MDEwOlJlcG9zaXRvcnkxMjk2MjY5",
    name,
    full_name: fullName,
    private: false,
    owner: user(owner),
    html_url: `https://github.com/${fullName}`,
    description: name === "website" ? null : `The ${name} repository`,
    fork: false,
    url: `https://api.github.com/repos/${fullName}`,
    created_at: "2011-01-26T19:01:12Z",
    updated_at: "2026-02-01T10:00:00Z",
    pushed_at: "2026-02-01T10:00:00Z",
    homepage: null,
    size: 108,
    stargazers_count: name.length * 100,
    watchers_count: name.length * 100,
    language: name === "mcp-server" ? "TypeScript" : null,
    forks_count: 9,
    archived: false,
    disabled: false,
    open_issues_count: 2,
    topics: name === "mcp-server" ? ["mcp", "ai"] : [],
    visibility: "public",
    default_branch: "main",
    score: 1,
  };
}

// An instance tries every way it has to find credentials that are not its own, under worker and under process
// isolation, served by a real `skillport serve --stdio` subprocess: what a server process exposes (its environment,
// /proc/self/environ) is the subject, so it stays a real process. The victim's credentials are canaries the host
// read from its environment and from a file.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { skipWithout } from "@skillport/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Served } from "./isolation-serve.js";
import { leaks, SNOOP, serveStdio, unhide } from "./isolation-serve.js";

const VICTIM = "victim-canary-7c1e0b52-from-the-host-env";
const VICTIM_FILE = "victim-canary-e3b70d18-from-a-file";
const THREAD_TOKEN = "thread-token-3f9a61d4-held-by-the-host";
const THREAD_PLAIN = "thread-plain-a04d7e19-its-own";
const CHILD_TOKEN = "child-token-5be2c8f0-held-by-the-host";
const CHILD_PLAIN = "child-plain-91d3a6b7-its-own";
const ENV = { VICTIM_CANARY: VICTIM, THREAD_TOKEN, THREAD_PLAIN, CHILD_TOKEN, CHILD_PLAIN };
const FILES = { "victim-token.txt": `${VICTIM_FILE}\n` };
const CONFIG = { apiOrigin: "http://127.0.0.1:9" };
const victim = {
  path: SNOOP,
  mcp: "victim",
  credentials: { plain: { env: "VICTIM_CANARY" }, token: { file: "./victim-token.txt" } },
  config: CONFIG,
};
const thread = {
  path: SNOOP,
  mcp: "thread",
  isolation: "worker",
  credentials: { token: { env: "THREAD_TOKEN" }, plain: { env: "THREAD_PLAIN" } },
  config: CONFIG,
};

async function snoop(served: Served, instance: string) {
  const files = [path.join(served.ws.dir, "victim-token.txt"), path.join(served.ws.dir, "isolation.manifest.json")];
  const envelope = await served.call(`${instance}.snoop`, { files });
  expect(envelope.ok, envelope.message).toBe(true);
  return { ...envelope.data, seen: unhide(envelope.data.seen) };
}

/** A loopback server: can the instance reach the network without ctx.fetch? */
async function withServer<T>(use: (url: string) => Promise<T>): Promise<T> {
  const server = createServer((_req, res) => res.end("reached"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    return await use(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

describe("worker isolation: what a worker thread can and cannot see", () => {
  let served: Served;
  beforeAll(async () => {
    served = await serveStdio({ skills: [victim, thread] }, ENV, FILES);
  });
  afterAll(() => served?.close());

  it("hands the worker only its own credentials that ctx.fetch does not hold", async () => {
    const { where, seen, hasToken } = await snoop(served, "thread");
    expect(where.isMainThread).toBe(false);
    const handed = {
      processEnv: seen.processEnv,
      workerData: seen.workerData,
      ctxToken: seen.ctxToken,
      ctxCredentials: seen.ctxCredentials,
      argv: seen.argv,
    } as Record<string, string>;
    expect(leaks(handed, { VICTIM, VICTIM_FILE, THREAD_TOKEN })).toEqual([]);
    expect(seen.ctxCredentials).toContain(THREAD_PLAIN);
    expect(hasToken).toBe(true);
  });

  it("cannot hide the host's environment, files or network from a worker: it shares the host's process", async () => {
    // The documented limit of worker isolation (README, SECURITY.md): a worker's promise is memory and CPU limits,
    // not credentials. Use isolation "process" where credentials must stay apart.
    const { seen } = await snoop(served, "thread");
    expect(seen.procSelfEnviron).toContain(VICTIM);
    expect(seen.files).toContain(VICTIM_FILE);
    const direct = await withServer((url) => served.call("thread.direct_fetch", { url }));
    expect(direct).toMatchObject({ ok: true, data: { status: 200 } });
  });
});

describe.skipIf(skipWithout("bubblewrap"))("process isolation: a child process sees only its own credentials", () => {
  let served: Served;
  beforeAll(async () => {
    served = await serveStdio(
      {
        skills: [
          victim,
          thread,
          {
            path: SNOOP,
            mcp: "child",
            isolation: "process",
            credentials: { token: { env: "CHILD_TOKEN" }, plain: { env: "CHILD_PLAIN" } },
            config: CONFIG,
          },
        ],
      },
      ENV,
      FILES,
    );
  });
  afterAll(() => served?.close());

  it("finds no other instance's credential and not its own held token, wherever it looks", async () => {
    const { where, seen, hasToken } = await snoop(served, "child");
    expect(where.isMainThread).toBe(true);
    expect(leaks(seen, { VICTIM, VICTIM_FILE, THREAD_TOKEN, THREAD_PLAIN, CHILD_TOKEN })).toEqual([]);
    expect(seen.files).toContain("(unreadable: ENOENT)");
    expect(hasToken).toBe(true);
  });

  it("receives its own plain credential through the setup message, not through an environment", async () => {
    const { seen } = await snoop(served, "child");
    expect(seen.ctxCredentials).toContain(CHILD_PLAIN);
    expect(leaks({ processEnv: seen.processEnv, procSelfEnviron: seen.procSelfEnviron }, { CHILD_PLAIN })).toEqual([]);
  });

  it("runs in its own process without a network: only ctx.fetch, through the host, reaches out", async () => {
    const [inProcess, child] = [await snoop(served, "victim"), await snoop(served, "child")];
    expect(child.where.pid).not.toBe(inProcess.where.pid);
    const direct = await withServer((url) => served.call("child.direct_fetch", { url }));
    expect(direct).toMatchObject({ ok: true, data: { status: null } });
  });
});

// A skill whose token each caller brings, through the host's pipeline in process and over loopback HTTP: each
// caller's call gets their own token, a caller without one is answered CREDENTIALS_MISSING with a link minted for
// them (carried by URL-mode elicitation where the client takes it), a local call gets the fallback.
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Caller } from "../../src/entries/check-scopes.js";
import type { Host } from "../../src/host.js";
import { createHost } from "../../src/host.js";
import { serveHostHttp } from "../../src/mcp/serve-http.js";
import { FIXTURES, manifestOf, scratch, silentLogger } from "../helpers.js";
import { ERAS } from "../http-helpers.js";

const OWN_TOKEN = path.join(FIXTURES, "skill-own-token");
const made: string[] = [];
afterAll(() => Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true }))));
const ALICE: Caller = { id: "token:alice", scopes: [] };
const BOB: Caller = { id: "token:bob", scopes: [] };
const digest = (value: string) => createHash("sha256").update(value).digest("hex").slice(0, 16);

/** A folder with a sealing key and the files the manifest reads, and the manifest over the fixture skill. */
async function setup(credential: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const dir = await mkdtemp(path.join(os.tmpdir(), "skillport-own-"));
  made.push(dir);
  await writeFile(path.join(dir, "key"), randomBytes(32).toString("base64"));
  await writeFile(path.join(dir, "fallback"), "fallback-token-0123456789");
  await writeFile(path.join(dir, "alice"), "alice-bearer-token-0123456789");
  // Files the manifest reads are written here: "FALLBACK" and "ALICE" stand for them.
  const manifest = manifestOf(
    JSON.parse(
      JSON.stringify({
        skills: [
          {
            path: OWN_TOKEN,
            mcp: "own",
            credentials: { token: { perCaller: true, ...credential } },
            ...(extra.isolation === undefined ? {} : { isolation: extra.isolation }),
          },
        ],
        credentials: { keys: [{ id: "k1", file: path.join(dir, "key") }] },
        ...(extra.http === undefined ? {} : { http: extra.http }),
        audit: { file: path.join(dir, "audit.log") },
      })
        .replaceAll('"FALLBACK"', JSON.stringify(path.join(dir, "fallback")))
        .replaceAll('"ALICE"', JSON.stringify(path.join(dir, "alice"))),
    ),
  );
  return { dir, manifest };
}

async function hostOf(credential: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const { dir, manifest } = await setup(credential, extra);
  const host = await createHost({ manifest, logger: silentLogger() });
  return { dir, host };
}

const call = (host: Host, tool: string, caller?: Caller) =>
  host.pipeline.call(`own.${tool}`, {}, caller === undefined ? {} : { caller });

describe("a skill credential each caller brings", () => {
  let host: Host;
  beforeAll(async () => {
    ({ host } = await hostOf({}));
    if (host.credentials !== undefined) host.credentials.baseUrl = "https://skills.example.com";
  });
  afterAll(() => host?.close());

  it("answers a caller without one CREDENTIALS_MISSING with a link for them only, and runs nothing", async () => {
    const outcome = await call(host, "token_digest", ALICE);
    expect(outcome.stage).toBe("credentials");
    expect(outcome.envelope).toMatchObject({ ok: false, error: { code: "CREDENTIALS_MISSING", retryable: true } });
    const error = (outcome.envelope as { error: { connectUrl?: string; expiresAt?: string } }).error;
    expect(error.connectUrl).toMatch(/^https:\/\/skills\.example\.com\/connections\/open\?link=/);
    expect(Date.parse(error.expiresAt ?? "")).toBeGreaterThan(Date.now());
    expect(outcome.envelope.message).toContain(error.connectUrl);
    const token = new URL(error.connectUrl ?? "").searchParams.get("link") ?? "";
    expect(host.credentials?.links.verify(token)).toMatchObject({ caller: "token:alice", slot: "own.token" });
    expect(outcome.connect).toMatchObject({ url: error.connectUrl });
  });

  it("gives each caller's call their own token, never another's, however their calls interleave", async () => {
    const vault = host.credentials?.vault;
    await vault?.put("own.token", ALICE.id, { kind: "token", value: "alice-own-token-0123456789", savedAt: 1 });
    await vault?.put("own.token", BOB.id, { kind: "token", value: "bob-own-token-9876543210", savedAt: 1 });
    // 200 calls, ten at a time (within the instance's concurrency and queue), alice's and bob's alternating.
    const outcomes = [];
    for (let round = 0; round < 20; round++) {
      outcomes.push(
        ...(await Promise.all(
          Array.from({ length: 10 }, (_, i) => call(host, "token_digest", i % 2 === 0 ? ALICE : BOB)),
        )),
      );
    }
    for (const [i, outcome] of outcomes.entries()) {
      const [who, value] = i % 2 === 0 ? [ALICE, "alice-own-token-0123456789"] : [BOB, "bob-own-token-9876543210"];
      expect(outcome.envelope).toMatchObject({ ok: true, data: { digest: digest(value), caller: who.id } });
    }
  });

  it("hides a caller's token from every answer, as any credential", async () => {
    const outcome = await call(host, "leak_token", ALICE);
    expect(JSON.stringify(outcome)).not.toContain("alice-own-token-0123456789");
    expect(outcome.envelope).toMatchObject({ ok: true, data: { token: "[REDACTED]" } });
  });

  it("tells a local call (stdio) it has no fallback to use", async () => {
    const outcome = await call(host, "token_digest");
    expect(outcome.envelope).toMatchObject({ ok: false, error: { code: "CREDENTIALS_MISSING", retryable: false } });
    expect(outcome.envelope.message).toContain("skills[0].credentials.token.fallback");
  });
});

describe("a per-caller skill credential with a fallback", () => {
  it("gives a caller without their own, and a local call, the fallback", async () => {
    const { host } = await hostOf({ fallback: { file: "FALLBACK" } });
    try {
      const fallback = digest("fallback-token-0123456789");
      expect((await call(host, "token_digest", BOB)).envelope).toMatchObject({ ok: true, data: { digest: fallback } });
      expect((await call(host, "token_digest")).envelope).toMatchObject({ ok: true, data: { digest: fallback } });
    } finally {
      await host.close();
    }
  });

  for (const isolation of ["worker", "process"]) {
    it(`reaches a skill isolated in a ${isolation} for that call only`, async () => {
      const { host } = await hostOf({ fallback: { file: "FALLBACK" } }, { isolation });
      try {
        await host.credentials?.vault.put("own.token", ALICE.id, {
          kind: "token",
          value: "alice-isolated-token-000",
          savedAt: 1,
        });
        const [alice, bob] = await Promise.all([call(host, "token_digest", ALICE), call(host, "token_digest", BOB)]);
        expect(alice.envelope).toMatchObject({ ok: true, data: { digest: digest("alice-isolated-token-000") } });
        expect(bob.envelope).toMatchObject({ ok: true, data: { digest: digest("fallback-token-0123456789") } });
      } finally {
        await host.close();
      }
    });
  }
});

it("does not start a per-caller credential without keys to seal it with, saying what to add", async () => {
  const dir = await scratch("skillport-own-");
  const manifest = manifestOf({
    skills: [{ path: OWN_TOKEN, mcp: "own", credentials: { token: { perCaller: true } } }],
    audit: { file: path.join(dir, "audit.log") },
  });
  await expect(createHost({ manifest, logger: silentLogger() })).rejects.toThrow(
    /skills\[0\]\.credentials\.token is per caller, and the manifest says nowhere to keep callers' credentials: add "credentials"/,
  );
});

describe("over HTTP", () => {
  // Stateless 2025-era HTTP knows no client's capabilities (each request stands alone): there the answer carries it.
  for (const { era, options } of ERAS.filter((e) => e.era.startsWith("2026"))) {
    it(`sends the link as URL-mode elicitation to a client that takes it, else as the answer (${era})`, async () => {
      const { manifest } = await setup(
        {},
        {
          http: {
            auth: {
              tokens: [
                { name: "alice", token: { file: "ALICE" } },
                { name: "bob", token: { file: "FALLBACK" } },
              ],
            },
          },
        },
      );
      const host = await createHost({ manifest, logger: silentLogger() });
      const serving = await serveHostHttp(host, { port: 0 });
      if (host.credentials !== undefined) host.credentials.baseUrl ??= new URL(serving.url).origin;
      const connect = async (capabilities: Record<string, unknown>) => {
        const client = new Client({ name: "t", version: "1" }, { ...options, capabilities });
        await client.connect(
          new StreamableHTTPClientTransport(new URL(serving.url), {
            requestInit: { headers: { authorization: "Bearer alice-bearer-token-0123456789" } },
          }),
        );
        return client;
      };
      try {
        const plain = await connect({});
        const result = await plain.callTool({ name: "own.token_digest", arguments: {} });
        expect(result.isError).toBe(true);
        const link = (result.structuredContent as { error: { connectUrl: string } }).error.connectUrl;
        expect(link.startsWith(new URL(serving.url).origin)).toBe(true);
        await plain.close();

        // Nothing a caller sends names another caller: not a header, not `_meta`, not an argument.
        await host.credentials?.vault.put("own.token", "token:bob", {
          kind: "token",
          value: "bob-secret-token-0000",
          savedAt: 1,
        });
        const posing = new Client({ name: "t", version: "1" }, options);
        await posing.connect(
          new StreamableHTTPClientTransport(new URL(serving.url), {
            requestInit: {
              headers: {
                authorization: "Bearer alice-bearer-token-0123456789",
                "x-skillport-caller": "token:bob",
                "x-forwarded-user": "bob",
              },
            },
          }),
        );
        const posed = await posing.callTool({
          name: "own.token_digest",
          arguments: {},
          _meta: { caller: "token:bob", "skillport/caller": "token:bob", auth: { id: "token:bob" } },
        });
        expect((posed.structuredContent as { error: { code: string } }).error.code).toBe("CREDENTIALS_MISSING");
        const withArgument = await posing.callTool({ name: "own.token_digest", arguments: { caller: "token:bob" } });
        expect((withArgument.structuredContent as { error: { code: string } }).error.code).toBe("ARGUMENT_INVALID");
        await posing.close();

        const asking = await connect({ elicitation: { form: {}, url: {} } });
        const error = await asking.callTool({ name: "own.token_digest", arguments: {} }).catch((e: unknown) => e);
        expect(error).toMatchObject({ code: -32042 });
        const data = (error as { data: { elicitations: { mode: string; url: string; elicitationId: string }[] } }).data;
        expect(data.elicitations).toHaveLength(1);
        expect(data.elicitations[0]).toMatchObject({ mode: "url" });
        expect(data.elicitations[0]?.url).toMatch(/\/connections\/open\?link=/);
        await asking.close();
      } finally {
        await serving.close();
        await host.close();
      }
    });
  }
});

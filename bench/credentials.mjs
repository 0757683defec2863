// What resolving a caller's own credential costs a call (issue 38): the same tool as an instance given the host's own
// token and as one whose token each caller brings, one call at a time, with a caller set. The caller's token is kept
// in Redis (the state's, on a redis-server started here) or in a file store, which the host reads once and then
// answers from memory; and, for an upstream server, exchanged (RFC 8693) at an identity provider and cached. Measured
// in process (the host's pipeline, what a stdio call runs) and over HTTP (`skillport serve --http` in a child process,
// sequential fetch calls as the caller), and the resolver alone; a control instance (the host's own token again)
// shows the run's noise. Tokens are stored with `skillport credentials set`, as an operator would. Writes its section
// of bench/RESULTS.md. Run with `pnpm bench`, or alone: node bench/credentials.mjs [--quick] [--no-write].
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createHost, createLogger } from "@skillport/host";
// The OAuth fixtures the host's tests use: an identity provider (oidc-provider) and an upstream requiring its tokens.
import { startAuthorizationServer, startProtectedMcpServer } from "../packages/test-utils/dist/index.js";
import { check, ROOT, requestFor, start, stop } from "./http-helpers.mjs";
import { startRedis } from "./redis-server.mjs";
import { WROTE, writeSection } from "./results-file.mjs";
import { flag, QUICK } from "./run-options.mjs";
import { median } from "./sequential-calls.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CLI = path.join(ROOT, "packages/cli/bin/skillport.js");
const HEADING = "# Per-caller credentials: what resolving a caller's token costs a call";
const ROUNDS = flag("--rounds", QUICK ? 3 : 7);
const CALLS = flag("--calls", QUICK ? 1000 : 4000);
const HTTP_CALLS = flag("--http-calls", QUICK ? 300 : 1000);
const ERA = "2026-07-28";
const BENCH_TOKEN = randomBytes(24).toString("hex");
const CALLER = { id: "token:bench", scopes: [] };
const TARGETS = { redis: 0.2, file: 0.05 };
const STATE_URL = "SKILLPORT_STATE_URL";

const dir = await mkdtemp(path.join(os.tmpdir(), "skillport-bench-credentials-"));
const redis = await startRedis();
const env = {
  SKILLPORT_BENCH_TOKEN: BENCH_TOKEN,
  BENCH_KEY: randomBytes(32).toString("base64"),
  BENCH_SHARED: `shared-${randomBytes(16).toString("hex")}`,
  BENCH_OWN: `own-${randomBytes(16).toString("hex")}`,
};
Object.assign(process.env, env);
const stores = {
  redis: { store: "state", env: { SKILLPORT_STATE_URL: redis.url } },
  file: { store: { file: "./.credentials" }, env: { SKILLPORT_STATE_URL: "" } },
};

const results = {};
try {
  for (const [name, setup] of Object.entries(stores)) {
    const manifest = path.join(dir, `${name}.manifest.json`);
    await writeFile(manifest, JSON.stringify(manifestOf(setup.store), null, 2));
    const set = spawnSync(
      process.execPath,
      [CLI, "credentials", "set", "own.token", "--caller", CALLER.id, "--from-env", "BENCH_OWN", "-m", manifest],
      { env: { ...process.env, ...setup.env }, encoding: "utf8" },
    );
    if (set.status !== 0) throw new Error(`skillport credentials set failed: ${set.stderr}`);
    results[name] = {
      inProcess: await inProcess(manifest, setup.env),
      http: await overHttp(name, manifest, setup.env),
    };
    process.stderr.write(`${name}: ${JSON.stringify(results[name])}\n`);
  }
  results.exchange = { http: await exchangeOverHttp() };
  process.stderr.write(`exchange: ${JSON.stringify(results.exchange)}\n`);
} finally {
  redis.child.kill("SIGKILL");
  await rm(dir, { recursive: true, force: true });
}

const cpus = os.cpus();
const load = os
  .loadavg()
  .map((n) => n.toFixed(2))
  .join(", ");
const ms = (n) => (Math.abs(n) < 0.00005 ? 0 : n).toFixed(4);
const row = (label, store, r, target) =>
  `| ${label} | ${store} | ${ms(r.plain)} | ${ms(r.own)} | **${ms(r.own - r.plain)}** | ${ms(r.control - r.plain)} | ${target === undefined ? "see below" : `< ${target}${r.own - r.plain < target ? " ✔" : " ✖"}`} |`;
const report = `${HEADING}

\`pnpm bench\` (bench/credentials.mjs) — the echo tool of bench/skill-echo as two instances of one host: one given
the host's own token (\`{ "env": … }\`), one whose token each caller brings (\`{ "perCaller": true }\`), called one at a
time as the same caller (\`token:bench\`, whose token \`skillport credentials set\` stored). The difference of their
p50 latencies is what resolving the caller's credential costs a call. **Redis**: the records in the state's Redis (a
redis-server ${redis.version} started here, loopback, no persistence): one GET per call. **File (cached)**: a file
store, read once at start and then answered from memory: a kept token the host need not fetch. In process: the host's pipeline (what a stdio call runs),
${ROUNDS} interleaved rounds of ${CALLS} calls per instance (the order rotated every round), the median of the rounds' p50s; and the resolver alone
(\`host.credentials.resolver.resolve\`). Over HTTP: \`skillport serve --http\` in a child process, tools/call in the
${ERA} era with the caller's static token, ${ROUNDS} interleaved rounds of ${HTTP_CALLS} sequential fetch calls per instance.

Machine: ${cpus[0]?.model ?? "unknown CPU"}, ${cpus.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB,
${os.type()} ${os.release()}, Node ${process.version}. Date: ${new Date().toISOString().slice(0, 10)}.
Load average when the run ended: ${load} (other work shared the machine's cores). The control is a third instance,
given the host's own token like the first, measured the same way: its difference from the first is what the run
cannot tell apart from nothing.

| path | store | host's own token p50 ms | caller's own token p50 ms | resolution ms | control ms | target |
| --- | --- | ---: | ---: | ---: | ---: | --- |
${row("in process", "Redis", results.redis.inProcess, TARGETS.redis)}
${row("in process", "file (cached)", results.file.inProcess, TARGETS.file)}
${row("HTTP", "Redis", results.redis.http, TARGETS.redis)}
${row("HTTP", "file (cached)", results.file.http, TARGETS.file)}
${row("HTTP, upstream server", "token exchange (cached)", results.exchange.http)}

The token exchange row is over HTTP only (a caller's subject token is the JWT it signed in with): an upstream MCP
server requiring the identity provider's tokens (the fixtures of the host's tests: oidc-provider and an SDK server,
in the benchmark's process), called through the host as a caller who signed in with a JWT. The host's own token: a
server entry sending one fixed token in its headers; the caller's own: a server entry with \`"auth": { "perCaller":
"exchange" }\`, whose token for the caller was exchanged (RFC 8693) once before the timed calls and is cached until it
nears its expiry (an hour here), with a connection to the upstream per caller. Both answer with the upstream's hop.
The two entries differ by more than the credential (a connection per caller against one shared by every caller), so
this row does not isolate the cached exchange's cost: its difference, ${ms(results.exchange.http.own - results.exchange.http.plain)} ms, says how much the whole
per-caller path adds to a call through an upstream${results.exchange.http.own - results.exchange.http.plain <= 0 ? " (nothing this run can see)" : ""}.

The resolver alone, p50: Redis ${ms(results.redis.inProcess.resolver)} ms, file (cached) ${ms(results.file.inProcess.resolver)} ms.
${httpNote()}`;
writeSection(HEADING, report);
process.stderr.write(`\n${WROTE}\n`);

// --- internal ---

/**
 * Token exchange over HTTP: a host serving an upstream twice with its own token (plain, control) and once per caller
 * through an RFC 8693 exchange (own), callers signed in with a JWT of the same identity provider.
 */
async function exchangeOverHttp() {
  const exchanger = { client_id: "skillport-bench", client_secret: randomBytes(16).toString("hex") };
  const as = await startAuthorizationServer({
    clients: [{ ...exchanger, grant_types: ["urn:ietf:params:oauth:grant-type:token-exchange"] }],
    accessTokenTtlSec: 3600,
  });
  const upstream = await startProtectedMcpServer({ issuer: as.issuer, jwksUrl: as.jwksUrl });
  const audience = "https://skillport.bench/mcp";
  try {
    const hostToken = await as.mintAccessToken({ sub: "skillport", audience: upstream.resource, ttlSec: 3600 });
    const callerToken = await as.mintAccessToken({ sub: "bench", audience, ttlSec: 3600 });
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the manifest's ${NAME}, which the host replaces
    const fixed = { url: upstream.url, headers: { Authorization: "Bearer ${BENCH_UPSTREAM}" } };
    const manifest = path.join(dir, "exchange.manifest.json");
    await writeFile(
      manifest,
      JSON.stringify({
        name: "bench-exchange",
        version: "1.0.0",
        skills: [],
        servers: [
          { mcp: "plain", ...fixed },
          { mcp: "control", ...fixed },
          {
            mcp: "own",
            url: upstream.url,
            auth: {
              perCaller: "exchange",
              issuer: as.issuer,
              audience: upstream.resource,
              resource: upstream.resource,
              clientId: exchanger.client_id,
              clientSecret: { env: "BENCH_EXCHANGE_SECRET" },
              listWith: { env: "BENCH_UPSTREAM" },
            },
          },
        ],
        credentials: { keys: [{ id: "k1", env: "BENCH_KEY" }], store: { file: "./.exchange-credentials" } },
        http: {
          rateLimit: { requestsPerMinute: 100000000 },
          auth: { jwt: { jwksUrl: as.jwksUrl, issuer: as.issuer, audience } },
        },
      }),
    );
    const server = await start(
      "credentials-exchange",
      [CLI, "serve", "--http", "--port", "0", "--manifest", manifest],
      {
        SKILLPORT_LOG_LEVEL: "info",
        SKILLPORT_STATE_URL: "",
        BENCH_UPSTREAM: hostToken,
        BENCH_EXCHANGE_SECRET: exchanger.client_secret,
      },
    );
    try {
      const requestOf = (name) => requestFor(ERA, `${name}.echo`, { authorization: `Bearer ${callerToken}` });
      const requests = { plain: requestOf("plain"), own: requestOf("own"), control: requestOf("control") };
      for (const request of Object.values(requests)) await check(server.url, request);
      const exchanges = as.tokenRequests.filter((r) => r.grantType.endsWith("token-exchange")).length;
      const callOf = (request) => async () => {
        const response = await fetch(server.url, request);
        await response.arrayBuffer();
      };
      const timed = await rounds(
        { plain: callOf(requests.plain), own: callOf(requests.own), control: callOf(requests.control) },
        HTTP_CALLS,
      );
      const after = as.tokenRequests.filter((r) => r.grantType.endsWith("token-exchange")).length;
      if (after !== exchanges) throw new Error(`the exchanged token was not cached: ${after - exchanges} exchanges`);
      return timed;
    } finally {
      await stop(server);
    }
  } finally {
    await upstream.close();
    await as.close();
  }
}

/** Said when a per-caller call costs more over HTTP than its resolution does in process, beyond the control. */
function httpNote() {
  const cost = (r) => r.own - r.plain;
  const { inProcess, http } = results.file;
  if (cost(http) - cost(inProcess) <= 3 * Math.abs(http.control - http.plain)) return "";
  return `
Over HTTP a per-caller call costs more than its resolution does in process (file store: ${ms(cost(http))} ms against
${ms(cost(inProcess))} ms), beyond the control: the store's lookup is the in-process figure, so the rest is spent on
the HTTP path of a per-caller call. A CPU profile of the same calls through \`serveHostHttp\` in one process (each
instance 15,000 calls) showed no function of the host's above the profile's noise once a kept record is opened once
per sealed text; what remains here is the child process's and the run's.
`;
}

function manifestOf(store) {
  return {
    name: "bench-credentials",
    version: "1.0.0",
    skills: [
      { path: path.join(HERE, "skill-echo"), mcp: "plain", credentials: { token: { env: "BENCH_SHARED" } } },
      { path: path.join(HERE, "skill-echo"), mcp: "own", credentials: { token: { perCaller: true } } },
      // A second instance given the host's own token: its difference from the first is the run's own noise.
      { path: path.join(HERE, "skill-echo"), mcp: "control", credentials: { token: { env: "BENCH_SHARED" } } },
    ],
    credentials: { keys: [{ id: "k1", env: "BENCH_KEY" }], store },
    http: {
      rateLimit: { requestsPerMinute: 100000000 },
      auth: { tokens: [{ name: "bench", token: { env: "SKILLPORT_BENCH_TOKEN" } }] },
    },
  };
}

/** The pipeline's p50 for each instance, and the resolver's alone, as the caller. */
async function inProcess(manifest, extraEnv) {
  // The host opens its state from the environment, as serve does.
  const saved = process.env[STATE_URL];
  process.env[STATE_URL] = extraEnv.SKILLPORT_STATE_URL;
  const host = await createHost({ manifest, logger: createLogger({ level: "silent" }), lock: "off" });
  if (saved === undefined) delete process.env[STATE_URL];
  else process.env[STATE_URL] = saved;
  try {
    const callOf = (instance) => () => host.pipeline.call(`${instance}.echo`, { text: "hello" }, { caller: CALLER });
    for (const instance of ["plain", "own", "control"]) {
      const outcome = await callOf(instance)();
      if (!outcome.envelope.ok) throw new Error(`${instance}.echo failed: ${outcome.envelope.message}`);
    }
    const slots = host.credentials.slots();
    const resolve = () => host.credentials.resolver.resolve(slots, CALLER);
    const first = await resolve();
    if (!first.ok) throw new Error(`the resolver answered ${first.message}`);
    return await rounds(
      { plain: callOf("plain"), own: callOf("own"), control: callOf("control"), resolver: resolve },
      CALLS,
    );
  } finally {
    await host.close();
  }
}

/** `skillport serve --http` over the manifest, and the p50 of sequential calls to each instance. */
async function overHttp(name, manifest, extraEnv) {
  const server = await start(`credentials-${name}`, [CLI, "serve", "--http", "--port", "0", "--manifest", manifest], {
    SKILLPORT_LOG_LEVEL: "info",
    ...extraEnv,
  });
  try {
    const requests = {
      plain: requestFor(ERA, "plain.echo", { authorization: `Bearer ${BENCH_TOKEN}` }),
      own: requestFor(ERA, "own.echo", { authorization: `Bearer ${BENCH_TOKEN}` }),
      control: requestFor(ERA, "control.echo", { authorization: `Bearer ${BENCH_TOKEN}` }),
    };
    for (const request of Object.values(requests)) await check(server.url, request);
    const callOf = (request) => async () => {
      const response = await fetch(server.url, request);
      await response.arrayBuffer();
    };
    return await rounds(
      { plain: callOf(requests.plain), own: callOf(requests.own), control: callOf(requests.control) },
      HTTP_CALLS,
    );
  } finally {
    await stop(server);
  }
}

/**
 * Each call's p50 over `count` calls, round after round (the first warms up), the order rotated every round so that
 * a drift of the server (its heap, the machine's load) falls on each alike: the median of the rounds' p50s.
 */
async function rounds(calls, count) {
  const names = Object.keys(calls);
  const p50s = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round <= ROUNDS; round++) {
    const order = [...names.slice(round % names.length), ...names.slice(0, round % names.length)];
    for (const name of order) {
      const p50 = await p50Of(calls[name], count);
      if (round > 0) p50s[name].push(p50);
    }
  }
  return Object.fromEntries(names.map((name) => [name, median(p50s[name])]));
}

async function p50Of(call, count) {
  const samples = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const began = performance.now();
    await call();
    samples[i] = performance.now() - began;
  }
  samples.sort();
  return samples[Math.floor(count / 2)];
}

// biome-ignore-all lint/suspicious/noTemplateCurlyInString: manifests write environment variables as ${NAME}, literally
// Every kind of message the host sends a client, each made to carry a credential (a skill's, and the one the host
// gave an upstream server in its env), through the host `skillport serve` builds, served over stdio and over HTTP
// (progress streamed as server-sent events) in this process, the upstream server in its own, driven by the official
// SDK client. Each kind must reach the client (the test sees
// it arrive) and hold no piece of either secret. KINDS is the list: what each message is and where it passes the
// redactor (packages/host/src/redaction/redactor.ts lists the same).
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HttpInProcess, StdioInProcess } from "./in-process.js";
import { httpInProcess, stdioInProcess } from "./in-process.js";
import type { Workspace } from "./workspace.js";
import { makeWorkspace, REPO } from "./workspace.js";

const CANARY = path.join(REPO, "packages/host/test/fixtures/skill-canary");
const ECHOING = fileURLToPath(new URL("./fixtures/echoing-progress-server.mjs", import.meta.url));
// Fresh per run: the skill's credential (read from a file) and the upstream's (read from the host's environment).
const SKILL_SECRET = `tok_${randomBytes(24).toString("base64url")}`;
const UPSTREAM_SECRET = `up_${randomBytes(24).toString("base64url")}`;

// biome-ignore lint/suspicious/noExplicitAny: JSON-RPC messages of any method
type Message = any;

interface Kind {
  kind: string;
  /** A question to the client: asked over stdio only (stateless HTTP has no way to ask, and answers without). */
  asks?: true;
  /** Where the message passes the redactor. */
  where: string;
  /** Makes the server send it. */
  run: (client: Client) => Promise<unknown>;
  /** Whether a message is one of this kind: at least one must arrive. */
  sent: (message: Message) => boolean;
}

const isProgress = (m: Message) => m.method === "notifications/progress";
/** A question to the client: a request of this method (2025 era), or an input_required result (2026-07-28 era). */
const asked = (m: Message, method: string) =>
  m.method === method ||
  Object.values(m.result?.inputRequests ?? {}).some((r) => (r as { method?: string }).method === method);
const progressOf = (name: string) => (client: Client) =>
  client.callTool({ name, arguments: {} }, { onprogress: () => undefined });

const KINDS: Kind[] = [
  {
    kind: "a tool's result: envelope (structuredContent), its text rendering, its content blocks",
    where: "pipeline/pipeline.ts finished(): envelope, content",
    run: (c) => c.callTool({ name: "canary.answer", arguments: {} }),
    sent: (m) => m.result?.structuredContent?.ok === true && m.result.content.length > 1,
  },
  {
    kind: "a tool's error (an isError envelope)",
    where: "pipeline/pipeline.ts finished(): envelope",
    run: (c) => c.callTool({ name: "canary.fail", arguments: {} }),
    sent: (m) => m.result?.isError === true,
  },
  {
    kind: "progress: a skill's ctx.progress, in process",
    where: "pipeline/bounded-run.ts redacted(): the one place progress is sent",
    run: progressOf("canary.progress"),
    sent: isProgress,
  },
  {
    kind: "progress: a skill's ctx.progress, in a worker",
    where: "pipeline/bounded-run.ts redacted()",
    run: progressOf("iso.progress"),
    sent: isProgress,
  },
  {
    kind: "progress: an upstream server's, relayed as the call's own",
    where: "pipeline/bounded-run.ts redacted() (entries/upstream-tool.ts reports it as the call's)",
    run: progressOf("echo.progress"),
    sent: isProgress,
  },
  {
    kind: "an upstream server's result",
    where: "pipeline/pipeline.ts finished(): envelope",
    run: (c) => c.callTool({ name: "echo.progress", arguments: {} }),
    sent: (m) => m.result?.structuredContent?.ok === true,
  },
  {
    kind: "a logging notification (ctx.log)",
    where: "pipeline/bounded-run.ts skillLogger()",
    // Plainly (the 2025 era's fast path), and asking with a log level (the SDK's path; the 2026-07-28 era sends log
    // lines only to a request that asks).
    run: async (c) => [
      await c.callTool({ name: "canary.log", arguments: {} }),
      await c.callTool({ name: "canary.log", arguments: {}, _meta: { "io.modelcontextprotocol/logLevel": "debug" } }),
    ],
    sent: (m) => m.method === "notifications/message",
  },
  {
    kind: "a capability's question to the user (ctx.elicit): message and schema",
    where: "pipeline/pipeline.ts finished(): input",
    asks: true,
    run: (c) => c.callTool({ name: "canary.ask", arguments: {} }),
    sent: (m) => asked(m, "elicitation/create"),
  },
  {
    kind: "a capability's question to the client's model (ctx.sample)",
    where: "pipeline/pipeline.ts finished(): input",
    asks: true,
    run: (c) => c.callTool({ name: "canary.sample", arguments: {} }),
    sent: (m) => asked(m, "sampling/createMessage"),
  },
  {
    kind: "a dangerous tool's confirmation question (its brief, from the arguments)",
    where: "pipeline/pipeline.ts finished(): elicit",
    asks: true,
    run: (c) => c.callTool({ name: "canary.wipe", arguments: { target: SKILL_SECRET } }),
    sent: (m) => asked(m, "elicitation/create"),
  },
  {
    kind: "a protocol error naming what the client sent (an unknown tool)",
    where: "pipeline/pipeline.ts call(): the unknown tool's answer",
    run: (c) => c.callTool({ name: `canary.${UPSTREAM_SECRET}`, arguments: {} }).catch(() => undefined),
    sent: (m) => m.error !== undefined,
  },
  {
    kind: "a protocol error naming what the client sent (a resource not found)",
    where: "mcp/server.ts resources/read: the URI in ResourceNotFoundError",
    run: (c) => c.readResource({ uri: `nothing://${SKILL_SECRET}` }).catch(() => undefined),
    sent: (m) => m.error !== undefined,
  },
  {
    kind: "a resource's contents (fixed, and of a template)",
    where: "pipeline/requests.ts through(): the whole outcome",
    run: async (c) => [
      await c.readResource({ uri: "canary://canary/token" }),
      await c.readResource({ uri: "canary://canary/items/1" }),
    ],
    sent: (m) => m.result?.contents !== undefined,
  },
  {
    kind: "resources/list: the resources a template's list names",
    where: "pipeline/requests.ts through()",
    run: (c) => c.listResources(),
    sent: (m) => m.result?.resources?.some((r: { uri: string }) => r.uri === "canary://canary/items/1") === true,
  },
  {
    kind: "a prompt's messages",
    where: "pipeline/requests.ts through()",
    run: (c) => c.getPrompt({ name: "canary.leak", arguments: {} }),
    sent: (m) => m.result?.messages !== undefined,
  },
  {
    kind: "completions (of a template's variable, of a prompt's argument)",
    where: "pipeline/requests.ts through()",
    run: async (c) => [
      await c.complete({
        ref: { type: "ref/resource", uri: "canary://canary/items/{id}" },
        argument: { name: "id", value: "" },
      }),
      await c.complete({ ref: { type: "ref/prompt", name: "canary.leak" }, argument: { name: "topic", value: "" } }),
    ],
    sent: (m) => (m.result?.completion?.values?.length ?? 0) > 0,
  },
  {
    kind: "tools/list: an upstream server's own descriptions",
    where: "mcp/tools-core.ts listOf(): once per list built",
    run: (c) => c.listTools(),
    sent: (m) => m.result?.tools?.some((t: { name: string }) => t.name === "echo.progress") === true,
  },
];

let ws: Workspace;
let manifest: string;

beforeAll(async () => {
  ws = await makeWorkspace();
  await writeFile(path.join(ws.dir, "secret.txt"), `${SKILL_SECRET}\n`);
  const instance = { path: CANARY, credentials: { token: { file: "./secret.txt" } }, allow: ["wipe"] };
  manifest = await ws.writeManifest(
    {
      name: "redaction-messages",
      skills: [
        { ...instance, mcp: "canary" },
        { ...instance, mcp: "iso", isolation: "worker" },
      ],
      servers: [
        { mcp: "echo", command: process.execPath, args: [ECHOING], env: { ECHOED_TOKEN: "${UPSTREAM_SECRET}" } },
      ],
    },
    "messages.manifest.json",
  );
});
afterAll(async () => {
  await ws?.dispose();
});

const ERAS = [
  { era: "2025-11-25", options: {} },
  { era: "2026-07-28", options: { versionNegotiation: { mode: { pin: "2026-07-28" } } } },
] as const;

describe.each(ERAS)("served over stdio ($era era): every message kind passes the redactor", ({ options }) => {
  let connected: StdioInProcess;
  let client: Client;
  let stderr: () => string;
  const received: Message[] = [];

  beforeAll(async () => {
    connected = await stdioInProcess(manifest, {
      env: { UPSTREAM_SECRET },
      client: { ...options, capabilities: { elicitation: { form: {} }, sampling: {} } },
    });
    ({ client, stderr } = connected);
    client.setRequestHandler("elicitation/create", async () => ({ action: "decline" }));
    client.setRequestHandler("sampling/createMessage", async () => ({
      role: "assistant",
      content: { type: "text", text: "no" },
      model: "fixture",
    }));
    record(client.transport as Transport, received);
  });
  afterAll(async () => {
    await connected?.close();
  });

  it.each(KINDS)("$kind", async ({ run, sent }) => {
    const from = received.length;
    await run(client);
    const messages = received.slice(from);
    expect(messages.some(sent), `nothing of this kind arrived; stderr:\n${stderr()}`).toBe(true);
    expect(leaksIn(messages)).toEqual([]);
  });
});

describe("served over HTTP: every message kind passes the redactor, progress as server-sent events", () => {
  let served: HttpInProcess;
  let client: Client;
  const received: Message[] = [];
  /** Every response's headers, as the client's fetch received them. */
  const headers: Record<string, string>[] = [];

  beforeAll(async () => {
    served = await httpInProcess(manifest, { env: { UPSTREAM_SECRET } });
    const transport = new StreamableHTTPClientTransport(new URL(served.url), {
      fetch: async (url, init) => {
        const response = await fetch(url, init);
        headers.push(Object.fromEntries(response.headers));
        return response;
      },
    });
    client = new Client({ name: "redaction-messages", version: "0.0.0" });
    await client.connect(transport);
    record(transport, received);
  });
  afterAll(async () => {
    await client?.close();
    await served?.close();
  });

  it.each(KINDS.filter((k) => k.asks === undefined))("$kind", async ({ run, sent }) => {
    const from = received.length;
    await run(client);
    const messages = received.slice(from);
    expect(messages.some(sent), `nothing of this kind arrived; stderr:\n${served.stderr()}`).toBe(true);
    expect(leaksIn(messages)).toEqual([]);
  });

  it("streams the progress of each source as events, before the result", async () => {
    for (const name of ["canary.progress", "iso.progress", "echo.progress"]) {
      const progress: unknown[] = [];
      const result = await client.callTool({ name, arguments: {} }, { onprogress: (p) => progress.push(p) });
      expect(result.isError, served.stderr()).toBeFalsy();
      expect(progress.length, name).toBeGreaterThan(0);
      expect(leaksIn(progress)).toEqual([]);
    }
  });

  it("sends no secret in a response header", () => {
    expect(headers.length).toBeGreaterThan(KINDS.length);
    expect(leaksIn(headers)).toEqual([]);
  });
});

// --- internal ---

/** Keeps every message the client's transport receives (answers, notifications, the server's requests). */
function record(transport: Transport, into: Message[]) {
  const deliver = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage, extra?: unknown) => {
    into.push(message);
    (deliver as ((m: JSONRPCMessage, e?: unknown) => void) | undefined)?.(message, extra);
  };
}

/**
 * The messages holding a piece of either secret a reader could recover: 12 characters of it in any string, plainly
 * or after undoing percent-encoding, or 12 of its bytes in a run of base64.
 */
function leaksIn(messages: Message[]): string[] {
  const pieces = [SKILL_SECRET, UPSTREAM_SECRET].flatMap((secret) =>
    Array.from({ length: secret.length - 11 }, (_, i) => secret.slice(i, i + 12)),
  );
  return messages.map((m) => JSON.stringify(m)).filter((json) => stringsOf(JSON.parse(json)).some(holds));

  function holds(text: string): boolean {
    const decoded = [text, safely(() => decodeURIComponent(text), text)];
    const bytes = (text.match(/[A-Za-z0-9+/_-]{16,}/g) ?? []).flatMap((run) =>
      [0, 1, 2, 3].map((at) => Buffer.from(run.slice(at), "base64").toString("latin1")),
    );
    return pieces.some((piece) => [...decoded, ...bytes].some((d) => d.includes(piece)));
  }
}

function stringsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([key, item]) => [key, ...stringsOf(item)]);
}

function safely<T>(run: () => T, fallback: T): T {
  try {
    return run();
  } catch {
    return fallback;
  }
}

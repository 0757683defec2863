import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Workspace } from "./workspace.js";
import { CLI, makeWorkspace, REPO } from "./workspace.js";

const LEAKY = path.join(REPO, "packages/host/test/fixtures/skill-leaky");
// A fresh credential per run, as the host reads it from a file.
const SECRET = `tok_${randomBytes(24).toString("base64url")}`;

/** The markers of every log path the attack must go through; the test waits until each has been written. */
const LOG_PATHS = [
  "an unhandled promise rejection was caught", // process guard, in-process skill
  "an uncaught exception was caught", // process guard: a throwing timer
  "a capability left an unhandled rejection", // worker
  "a worker failed", // worker error event: a throwing timer in the worker
  "a capability wrote to stderr", // worker console output
  '"msg":"console output"', // in-process console output, routed to the log
  "tool threw an unexpected error", // an error with the secret in its cause chain
  '"kind":"audit"', // audit lines, with arguments
];

describe("skillport serve --stdio never lets a credential out, in any form", () => {
  let ws: Workspace;
  let client: Client;
  let stderr = "";
  const stdout: unknown[] = [];
  let everyPath: () => void = () => undefined;
  const loggedEveryPath = new Promise<void>((resolve) => {
    everyPath = resolve;
  });

  beforeAll(async () => {
    ws = await makeWorkspace();
    await writeFile(path.join(ws.dir, "secret.txt"), `${SECRET}\n`);
    await writeFile(path.join(ws.dir, "app.env"), `# app settings\nAPI_TOKEN=${SECRET}\nDEBUG=0\n`);
    const instance = {
      path: LEAKY,
      credentials: { token: { file: "./secret.txt" } },
      config: { secretFile: "./secret.txt" },
    };
    const manifest = await ws.writeManifest(
      {
        audit: { arguments: true },
        skills: [
          { ...instance, mcp: "leaky" },
          { ...instance, mcp: "iso", isolation: "worker" },
        ],
      },
      "leaky.manifest.json",
    );
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "serve", "--stdio", "--manifest", manifest],
      cwd: ws.dir,
      env: { ...(process.env as Record<string, string>), SKILLPORT_LOG_LEVEL: "debug" },
      stderr: "pipe",
    });
    transport.stderr?.on("data", (d: Buffer) => {
      stderr += d.toString();
      if (LOG_PATHS.every((marker) => stderr.includes(marker))) everyPath();
    });
    client = new Client({ name: "redaction-e2e", version: "0.0.0" });
    await client.connect(transport);
    // Every message the server writes to stdout, as the client receives it.
    const deliver = transport.onmessage;
    transport.onmessage = (message) => {
      stdout.push(message);
      deliver?.(message);
    };
  });

  afterAll(async () => {
    await client?.close();
    await ws?.dispose();
  });

  it("answers, logs and audits every attempt with the credential redacted", async () => {
    const env = path.join(ws.dir, "app.env");
    const cutAt = "# app settings\nAPI_TOKEN=".length + 16;
    const calls: [string, Record<string, unknown>][] = [
      ["read_base64", { path: env }],
      ["read_base64", { path: env, max_bytes: cutAt }],
      ["read_base64", { path: env, offset: cutAt }],
      ["read_base64", { path: path.join(ws.dir, `${SECRET}.txt`) }], // the model sends it; the error echoes it
      ["deep", { depth: 1000 }],
      ["deep", { depth: 10_000 }],
      ["echo_upstream", {}],
      ["log", {}],
      ["fail", { how: "skill" }],
      ["fail", { how: "cause" }],
      ["stray", {}],
    ];
    const answers: Record<string, unknown>[] = [];
    for (const instance of ["leaky", "iso"]) {
      for (const [tool, args] of calls) {
        const result = await client.callTool({ name: `${instance}.${tool}`, arguments: args });
        answers.push(result.structuredContent as Record<string, unknown>);
      }
    }
    // The attempts did reach the client, redacted: not empty answers.
    expect(answers[0]).toMatchObject({
      ok: true,
      data: { text: "# app settings\nAPI_TOKEN=[REDACTED]\nDEBUG=0\n", content: expect.stringContaining("[REDACTED]") },
    });
    let deep = (answers[4] as { data: unknown }).data;
    for (let level = 0; level < 1000; level++)
      deep = level % 2 ? (deep as { next: unknown }).next : (deep as unknown[])[0];
    expect(deep).toEqual({ token: "[REDACTED]", "[REDACTED]": "as a key" });
    // Too deep to copy out of a worker: an answer all the same, not a hang until the timeout.
    expect(answers[calls.length + 5]).toMatchObject({ ok: false, error: { code: "INTERNAL" } });

    // Every log path has written its line (the stderr stream says when).
    await loggedEveryPath;
    expect(stdout.length).toBeGreaterThanOrEqual(calls.length * 2);
    expect(leaksIn(stdout.map((m) => JSON.stringify(m)))).toEqual([]);
    expect(leaksIn(stderr.split("\n"))).toEqual([]);
  });
});

/**
 * The lines that still hold a piece of the credential a reader could recover: 12 characters of it, plainly or
 * after undoing JSON, URL or HTML escaping and line breaks, or 12 of its bytes after decoding base64 or hex.
 */
function leaksIn(lines: string[]): string[] {
  return lines.filter((line) => {
    const texts = stringsOf(line);
    return texts.some((text) => {
      const joined = text.replace(/\r?\n[ \t]*/g, "");
      const decoded = [
        joined,
        joined.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => safely(() => decodeURIComponent(run), run)),
        joined.replace(/&#(x?)([0-9A-Fa-f]+);/g, (_m, x: string, n: string) =>
          String.fromCodePoint(Number.parseInt(n, x ? 16 : 10)),
        ),
      ];
      const bytes = [
        ...(joined.match(/[A-Za-z0-9+/_-]{16,}/g) ?? []).flatMap((w) =>
          [0, 1, 2, 3].map((o) => Buffer.from(w.slice(o), "base64")),
        ),
        ...(joined.match(/[0-9A-Fa-f]{24,}/g) ?? []).flatMap((w) => [0, 1].map((o) => Buffer.from(w.slice(o), "hex"))),
      ];
      for (let i = 0; i + 12 <= SECRET.length; i++) {
        const piece = SECRET.slice(i, i + 12);
        if (decoded.some((d) => d.includes(piece))) return true;
        if (bytes.some((b) => b.includes(Buffer.from(piece)))) return true;
      }
      return false;
    });
  });
}

/** The line itself and every string inside it when it is JSON. */
function stringsOf(line: string): string[] {
  const out = [line];
  const parsed = safely(() => JSON.parse(line) as unknown, undefined);
  const stack = [parsed];
  for (let value = stack.pop(); value !== undefined || stack.length > 0; value = stack.pop()) {
    if (typeof value === "string") out.push(value);
    else if (typeof value === "object" && value !== null) stack.push(...Object.keys(value), ...Object.values(value));
  }
  return out;
}

function safely<T, F>(run: () => T, fallback: F): T | F {
  try {
    return run();
  } catch {
    return fallback;
  }
}

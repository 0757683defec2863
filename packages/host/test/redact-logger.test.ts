import { readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost } from "../src/host.js";
import type { Logger } from "../src/logging/logger.js";
import { hostLoggerOptions } from "../src/logging/logger.js";
import { createAudit } from "../src/pipeline/audit.js";
import { createRedactor } from "../src/redaction/redactor.js";
import { ECHO, manifestOf } from "./helpers.js";

const SECRET = "sk-live-4b1d2c3e9f8a7b6c5d4e3f2a";
const b64 = (text: string) => Buffer.from(text).toString("base64");

/** A pino logger writing its lines into an array. */
function capture(options: pino.LoggerOptions = {}): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  return { logger: pino({ level: "debug", ...options }, { write: (line: string) => lines.push(line) }), lines };
}

/** Logs the secret every way the host does: data, errors with causes, child bindings, format arguments. */
function logEverything(logger: Logger) {
  const cause = new Error(`upstream answered ${b64(`token=${SECRET}`)}`);
  const error = Object.assign(new Error(`request failed for ${SECRET.slice(0, 20)}`, { cause }), {
    config: { headers: { authorization: `Bearer ${SECRET}` } },
  });
  logger.info({ token: SECRET, nested: [{ deeper: { url: `https://x.test/?t=${encodeURIComponent(SECRET)}` } }] });
  logger.error({ err: error }, "a call failed");
  logger.error(error);
  logger.warn(`the token is ${SECRET}`);
  logger.info("format %s and %o", SECRET, { value: SECRET });
  logger.child({ traceId: "t", token: SECRET }).info({ html: SECRET.replace("-", "&#45;") }, "child line");
  logger
    .child({})
    .child({ deeper: true })
    .warn({ err: `a thrown string holding the secret: ${SECRET}` });
  logger.error({ err: { message: "an error-like object", stack: `at ${SECRET.slice(2)}\n    at x` } });
}

/** What is left of the secret in the lines, in any form the redactor knows. */
function leaked(lines: string[]): string[] {
  const probe = createRedactor();
  probe.add([SECRET]);
  return lines.filter((line) => probe.find(line) !== undefined || line.includes(SECRET.slice(3, 15)));
}

describe.each([
  [
    "the host's own logger",
    async () => {
      const redactor = createRedactor();
      redactor.add([SECRET]);
      return capture(hostLoggerOptions(redactor));
    },
  ],
  [
    "a logger the caller passes to createHost",
    async () => {
      const foreign = capture();
      const host = await createHost({ manifest: manifestOf({ skills: [{ path: ECHO }] }), logger: foreign.logger });
      host.redactor.add([SECRET]);
      return { logger: host.logger, lines: foreign.lines };
    },
  ],
])("%s", (_name, make) => {
  it("redacts every line: data, messages, errors with their causes and fields, child bindings, format arguments", async () => {
    const { logger, lines } = await make();
    logEverything(logger);
    expect(lines.length).toBeGreaterThanOrEqual(8);
    expect(leaked(lines)).toEqual([]);
    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    // Errors stay errors for pino to format: the class, then the cause chain folded into message and stack.
    expect(records).toContainEqual(
      expect.objectContaining({
        msg: "a call failed",
        err: expect.objectContaining({
          type: "Error",
          message: expect.stringMatching(/^request failed for \[REDACTED\]: upstream answered \S*\[REDACTED\]$/),
          stack: expect.stringContaining("caused by: Error: upstream answered"),
          config: { headers: { authorization: "Bearer [REDACTED]" } },
        }),
      }),
    );
    // An Error logged alone keeps its message as the line's message, redacted.
    expect(records).toContainEqual(expect.objectContaining({ msg: "request failed for [REDACTED]" }));
  });
});

describe("a log call whose arguments cannot be read", () => {
  it("logs that it could not redact them, and nothing of them", () => {
    const redactor = createRedactor();
    redactor.add([SECRET]);
    const { logger, lines } = capture(hostLoggerOptions(redactor));
    const hostile = {
      token: SECRET,
      get boom(): string {
        throw new Error(`getter failed holding ${SECRET}`);
      },
    };
    logger.error({ hostile }, `a message holding ${SECRET}`);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? "{}")).toMatchObject({ msg: "a log line could not be read to redact it" });
    expect(leaked(lines)).toEqual([]);
  });
});

describe("createHost", () => {
  beforeAll(() => {
    process.env.SKILLPORT_TEST_LOGGED_SECRET = SECRET;
  });
  afterAll(() => {
    delete process.env.SKILLPORT_TEST_LOGGED_SECRET;
  });

  it("gives host.logger the credentials it read, whoever made the logger", async () => {
    const foreign = capture();
    const host = await createHost({
      manifest: manifestOf({
        skills: [{ path: ECHO, credentials: { token: { env: "SKILLPORT_TEST_LOGGED_SECRET" } } }],
      }),
      logger: foreign.logger,
    });
    logEverything(host.logger);
    expect(leaked(foreign.lines)).toEqual([]);
    await host.close();
  });
});

describe("a credential too short to find encoded", () => {
  it("is named in a warning at start-up, never shown", async () => {
    process.env.SKILLPORT_TEST_SHORT_SECRET = "s3cr3t";
    const foreign = capture();
    const host = await createHost({
      manifest: manifestOf({
        skills: [{ path: ECHO, credentials: { other: { env: "SKILLPORT_TEST_SHORT_SECRET" } } }],
      }),
      logger: foreign.logger,
    });
    delete process.env.SKILLPORT_TEST_SHORT_SECRET;
    expect(foreign.lines.map((l) => JSON.parse(l))).toContainEqual(
      expect.objectContaining({
        level: 40,
        instance: "echo",
        credential: "other",
        msg: expect.stringContaining("fewer than 8"),
      }),
    );
    expect(foreign.lines.join("")).not.toContain("s3cr3t");
    await host.close();
  });
});

describe("the audit", () => {
  it("redacts encoded and nested secrets in its lines", async () => {
    const redactor = createRedactor();
    redactor.add([SECRET]);
    const file = path.join(os.tmpdir(), `skillport-audit-redact-${process.pid}-${Date.now()}.log`);
    const audit = createAudit({ file, arguments: true }, redactor);
    let deep: unknown = { text: b64(SECRET) };
    for (let i = 0; i < 500; i++) deep = { deeper: deep };
    audit({
      traceId: "t",
      tool: "echo.echo",
      instance: "echo",
      skill: "s@1",
      risk: "read_only",
      brief: `Echo ${SECRET.slice(0, 10)}\n${SECRET.slice(10)}`,
      outcome: "OK",
      durationMs: 1,
      arguments: { deep },
    });
    audit.close(); // lines are batched until the turn ends or the host closes
    const text = await readFile(file, "utf8");
    await rm(file, { force: true });
    expect(leaked([text])).toEqual([]);
    expect(JSON.parse(text)).toMatchObject({ kind: "audit", brief: "Echo [REDACTED]" });
  });
});

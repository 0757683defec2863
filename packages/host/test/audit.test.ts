import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AuditRecord } from "../src/pipeline/audit.js";
import { createAudit } from "../src/pipeline/audit.js";
import { createRedactor, REDACTED } from "../src/redaction/redactor.js";

// The audit builds its lines itself (a general logger's serialiser was a tenth of a call's CPU); a line must read
// as the pino line it replaced did, for every consumer of the audit trail.

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "skillport-audit-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const RECORD: AuditRecord = {
  traceId: "6c1e0b8e-1f7a-4a53-9d3f-0c2f0b9a1e11",
  tool: "notes.search_notes",
  instance: "notes",
  skill: "@skillport/skill-notes@0.1.0",
  risk: "read_only",
  brief: 'Search notes for "agent" — “quoted”, a tab\there, a newline\nthere, \\ and \u0001',
  outcome: "OK",
  durationMs: 3.125,
  caller: undefined,
  arguments: { query: "agent", nested: { list: [1, "two", null, true] }, empty: {} },
};

/** The lines a pino logger configured as the audit's was writes for these records, time left out. */
function pinoLines(records: AuditRecord[], withArguments: boolean): string[] {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const logger = pino(
    { base: { kind: "audit" }, timestamp: pino.stdTimeFunctions.isoTime, messageKey: "msg" },
    sink as unknown as pino.DestinationStream,
  );
  for (const record of records) {
    logger.info(withArguments ? record : { ...record, brief: undefined, arguments: undefined }, "tool call");
  }
  return lines;
}

const withoutTime = (line: string) => line.replace(/"time":"[^"]+"/, '"time":""');

function auditLines(records: AuditRecord[], options: { arguments?: boolean }, secrets: string[] = []): string[] {
  const file = path.join(dir, `audit-${Math.random()}.log`);
  const redactor = createRedactor();
  redactor.add(secrets);
  const audit = createAudit({ file, ...options }, redactor);
  for (const record of records) audit(record);
  audit.close();
  return readFileSync(file, "utf8").split(/(?<=\n)/);
}

describe("an audit line", () => {
  it.each([true, false])("is byte for byte the line pino wrote, but its time (arguments: %s)", (withArguments) => {
    const records = [RECORD, { ...RECORD, caller: "token:ci", outcome: "TIMEOUT", brief: undefined, durationMs: 0 }];
    const ours = auditLines(records, { arguments: withArguments });
    expect(ours.map(withoutTime)).toEqual(pinoLines(records, withArguments).map(withoutTime));
    for (const line of ours) {
      expect(line.endsWith("\n")).toBe(true);
      expect(JSON.parse(line).time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    }
  });

  it("carries the brief, made of the arguments, only with them (audit.arguments)", () => {
    const [quiet] = auditLines([RECORD], { arguments: false });
    const [defaulted] = auditLines([RECORD], {});
    for (const line of [quiet, defaulted]) {
      expect(line).not.toContain("agent");
      expect(Object.keys(JSON.parse(line as string))).not.toContain("brief");
    }
    expect(JSON.parse(auditLines([RECORD], { arguments: true })[0] as string)).toMatchObject({
      brief: RECORD.brief,
      arguments: RECORD.arguments,
    });
  });

  it("names arguments JSON cannot carry instead of losing the line", () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const [line] = auditLines([{ ...RECORD, arguments: { big: 10n, cyclic } }], { arguments: true });
    expect(JSON.parse(line as string)).toMatchObject({ tool: "notes.search_notes", arguments: expect.any(String) });
  });

  it("carries no secret, in any field, plain or as JSON escapes it", () => {
    const secret = 'sk-live-"quoted"-0123456789';
    const [line] = auditLines(
      [{ ...RECORD, brief: `token ${secret}`, arguments: { key: secret, list: [`x${secret}y`] } }],
      { arguments: true },
      [secret],
    );
    expect(line).not.toContain("sk-live");
    expect(JSON.parse(line as string)).toMatchObject({
      brief: `token ${REDACTED}`,
      arguments: { key: REDACTED, list: [`x${REDACTED}y`] },
    });
  });

  it("redacts each field on its own: a secret's first characters cut off at the end of any field", () => {
    // Nine characters end each field: too few to be found in the middle of the finished line, enough at a text's end.
    const secret = "sk-live-0123456789abcdef";
    const cut = `cut ${secret.slice(0, 9)}`;
    const fields = ["traceId", "tool", "instance", "skill", "risk", "brief", "outcome", "caller"] as const;
    const record: AuditRecord = { ...RECORD, ...Object.fromEntries(fields.map((field) => [field, cut])) };
    const [line] = auditLines([{ ...record, arguments: { key: cut } }], { arguments: true }, [secret]);
    const written = JSON.parse(line as string) as Record<string, unknown>;
    for (const field of fields) expect(written[field], field).toBe(`cut ${REDACTED}`);
    expect(written.arguments).toEqual({ key: `cut ${REDACTED}` });
    // A field that is not the string its type says (an error code a capability made an object) is copied, redacted.
    const odd = { ...record, outcome: { code: cut } as unknown as string };
    const [oddLine] = auditLines([odd], { arguments: false }, [secret]);
    expect(JSON.parse(oddLine as string).outcome).toEqual({ code: `cut ${REDACTED}` });
  });

  it("is made after the answer for a record of strings, and at the call for one holding objects", async () => {
    const file = path.join(dir, "made.log");
    const redactor = createRedactor();
    redactor.add(["sk-live-0123456789abcdef"]);
    let scanned = 0;
    const counting = {
      ...redactor,
      string: (text: string) => {
        scanned++;
        return redactor.string(text);
      },
    };
    const audit = createAudit({ file, arguments: true }, counting);
    audit({ ...RECORD, arguments: undefined });
    // Nothing of the line is made in the call's turn: no field scanned, no line.
    expect(scanned).toBe(0);
    const args = { query: "agent" };
    audit({ ...RECORD, arguments: args });
    // Arguments are the caller's object: the line is made now, and what the object holds later does not reach it.
    expect(scanned).toBeGreaterThan(0);
    args.query = "changed";
    await new Promise((resolve) => setImmediate(resolve));
    const lines = readFileSync(file, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => line.arguments)).toEqual([undefined, { query: "agent" }]);
    audit.close();
  });

  it("writes a line saying so when a later line cannot be made, and the process goes on", async () => {
    const file = path.join(dir, "failed.log");
    const broken = {
      ...createRedactor(),
      active: true,
      string: () => {
        throw new RangeError("Invalid string length");
      },
    };
    const audit = createAudit({ file }, broken);
    audit({ ...RECORD, arguments: undefined });
    await new Promise((resolve) => setImmediate(resolve));
    const [line] = readFileSync(file, "utf8").split("\n").filter(Boolean);
    expect(JSON.parse(line as string)).toMatchObject({
      level: 50,
      kind: "audit",
      traceId: RECORD.traceId,
      tool: RECORD.tool,
      msg: "audit line could not be made: RangeError",
    });
    audit.close();
  });
});

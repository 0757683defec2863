import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HostError } from "../src/errors/host-error.js";
import { createAuditDestination, FLUSH_AT, LATER_LINE_SIZE } from "../src/pipeline/audit-destination.js";
import { ECHO } from "./helpers.js";

// Audit lines are batched per turn of the event loop; a turn that never waits on I/O (thousands of calls made in
// process, one after another) must neither hold all its lines in memory nor lose them all to a kill.

const DIST = fileURLToPath(new URL("../dist/index.js", import.meta.url));

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "skillport-audit-destination-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const linesOf = (file: string) => readFileSync(file, "utf8").split("\n").filter(Boolean);

describe("the audit destination", () => {
  it("creates its file and folders with the first line, not before", async () => {
    const file = path.join(dir, "logs", "audit", "audit.log");
    const destination = createAuditDestination(file);
    destination.flushSync();
    destination.end();
    expect(existsSync(path.join(dir, "logs"))).toBe(false);
    const writing = createAuditDestination(file);
    writing.write('{"n":1}\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(linesOf(file)).toEqual(['{"n":1}']);
    writing.end();
  });

  it("refuses at once a file it could not write, naming it and what is wrong, and creates nothing", () => {
    const folder = path.join(dir, "a-folder");
    mkdirSync(folder);
    const plain = path.join(dir, "a-file");
    writeFileSync(plain, "");
    expect(() => createAuditDestination(folder)).toThrow(`audit.file: ${folder} cannot be written: it is a folder`);
    expect(() => createAuditDestination(path.join(plain, "audit.log"))).toThrow(
      /audit\.file: .*a-file.audit\.log cannot be written: a part of its path is a file, not a folder; fix its permissions or name another file/,
    );
    expect(() => createAuditDestination(folder)).toThrow(HostError);
    expect(() => createAuditDestination(path.join(plain, "deeper", "audit.log"))).toThrow(
      /a part of its path is a file/,
    );
  });

  it("holds a turn's lines until the turn ends, and writes them in one piece then", async () => {
    const file = path.join(dir, "audit.log");
    const destination = createAuditDestination(file);
    destination.write('{"n":1}\n');
    destination.write('{"n":2}\n');
    expect(existsSync(file)).toBe(false);
    await new Promise((resolve) => setImmediate(resolve));
    expect(linesOf(file)).toEqual(['{"n":1}', '{"n":2}']);
    destination.end();
  });

  it("writes at once, in the same turn, when the turn has buffered FLUSH_AT characters", () => {
    const file = path.join(dir, "audit.log");
    const destination = createAuditDestination(file);
    const line = `${JSON.stringify({ pad: "x".repeat(200) })}\n`;
    const fill = Math.ceil(FLUSH_AT / line.length);
    for (let i = 0; i < fill - 1; i++) destination.write(line);
    expect(existsSync(file)).toBe(false);
    destination.write(line);
    expect(linesOf(file)).toHaveLength(fill);
    destination.write(line); // the next line starts a new batch
    expect(linesOf(file)).toHaveLength(fill);
    destination.end();
    expect(linesOf(file)).toHaveLength(fill + 1);
  });

  it("makes a later line when its batch is written, in order with the finished ones, counting LATER_LINE_SIZE", () => {
    const file = path.join(dir, "audit.log");
    const destination = createAuditDestination(file);
    const made: number[] = [];
    const later = (n: number) => () => {
      made.push(n);
      return `{"n":${n}}\n`;
    };
    destination.write('{"n":0}\n');
    destination.write(later(1));
    destination.write('{"n":2}\n');
    expect(made).toEqual([]);
    destination.flushSync();
    expect(made).toEqual([1]);
    expect(linesOf(file)).toEqual(['{"n":0}', '{"n":1}', '{"n":2}']);
    // A turn of later lines alone is written at once when their count reaches FLUSH_AT.
    const fill = FLUSH_AT / LATER_LINE_SIZE;
    for (let i = 0; i < fill - 1; i++) destination.write(later(3));
    expect(linesOf(file)).toHaveLength(3);
    destination.write(later(3));
    expect(linesOf(file)).toHaveLength(3 + fill);
    destination.end();
    // After the end a later line is made and written at once.
    destination.write(later(4));
    expect(linesOf(file).at(-1)).toBe('{"n":4}');
  });

  it("loses at most FLUSH_AT characters of lines when the process is killed in the middle of a long turn", async () => {
    const CALLS = 2000;
    const manifest = path.join(dir, "skills.manifest.json");
    writeFileSync(
      manifest,
      JSON.stringify({ name: "kill", version: "1.0.0", audit: { file: "./audit.log" }, skills: [{ path: ECHO }] }),
    );
    const script = path.join(dir, "killed.mjs");
    // Every call after the first runs in one turn (the echo tool never waits on I/O); then SIGKILL, which no exit
    // hook sees: only what the destination wrote before is on disk.
    writeFileSync(
      script,
      `import { createHost, createLogger } from ${JSON.stringify(pathToFileURL(DIST).href)};
const host = await createHost({ manifest: ${JSON.stringify(manifest)}, logger: createLogger({ level: "silent" }) });
await host.pipeline.call("echo.echo", { text: "first" });
await new Promise((resolve) => setImmediate(resolve));
for (let i = 0; i < ${CALLS}; i++) await host.pipeline.call("echo.echo", { text: "call " + i });
process.kill(process.pid, "SIGKILL");
`,
    );
    const signal = await new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [script], { cwd: dir, stdio: "ignore" });
      child.on("error", reject);
      child.on("exit", (_code, signal) => resolve(signal));
    });
    expect(signal).toBe("SIGKILL");
    const lines = linesOf(path.join(dir, "audit.log"));
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ kind: "audit", tool: "echo.echo" });
    const lineLength = Math.min(...lines.map((line) => line.length + 1));
    const lost = CALLS + 1 - lines.length;
    expect(lost).toBeGreaterThanOrEqual(0);
    expect(lost * lineLength).toBeLessThan(FLUSH_AT);
  });
});

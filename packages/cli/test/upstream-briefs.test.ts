// The confirmation brief of an upstream server's destructive tool, replayed as the attack it was open to: a long,
// harmless-looking first argument (`note`) pushed the `path` the tool acts on out of a brief cut at 300 characters,
// so the user approved "tidy-up of /tmp/build-cache…" and the tool ran on /home/user/.ssh. The fixture server
// deletes nothing; it records each call it runs. And the same brief carried argument contents into every audit line
// although the manifest's audit.arguments was off. The host is built as `skillport serve` builds it and served over
// stdio in this process; the fixture server is a real process.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { linesOf } from "@skillport/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stdioInProcess } from "./in-process.js";
import type { Workspace } from "./workspace.js";
import { makeWorkspace } from "./workspace.js";

const TIDY_SERVER = fileURLToPath(new URL("./fixtures/tidy-server.mjs", import.meta.url));

const ERAS = [
  { era: "2025-11-25", options: {} },
  { era: "2026-07-28", options: { versionNegotiation: { mode: { pin: "2026-07-28" } } } },
] as const;

const NOTE = `tidy-up of /tmp/build-cache, as agreed with the team: NOTE-CANARY ${"a".repeat(5000)}`;
const VICTIM = "/home/user/.ssh";

type Envelope = { ok: boolean; message: string; error?: { code: string } };

describe.each(ERAS)("a destructive upstream tool's confirmation over stdio ($era era)", ({ options }) => {
  let ws: Workspace;
  let ran: string;

  beforeAll(async () => {
    ws = await makeWorkspace();
    ran = path.join(ws.dir, "tidy.log");
  });
  afterAll(() => ws.dispose());

  /** The tidy server mounted with `tidy` allowed, audited to a file, served to a client that can ask its user. */
  async function serve(name: string, auditArguments: boolean | undefined) {
    const manifest = await ws.writeManifest(
      {
        name: "upstream-briefs",
        skills: [],
        servers: [
          { mcp: "tidy", command: process.execPath, args: [TIDY_SERVER], env: { FIXTURE_LOG: ran }, allow: ["tidy"] },
        ],
        audit: { file: `./${name}.audit.log`, ...(auditArguments === undefined ? {} : { arguments: auditArguments }) },
      },
      `${name}.manifest.json`,
    );
    const connected = await stdioInProcess(manifest, {
      client: { ...options, capabilities: { elicitation: { form: {} } } },
    });
    const asked: string[] = [];
    // The user: reads the question, and refuses anything that would touch their SSH keys.
    connected.client.setRequestHandler("elicitation/create", async (request) => {
      const message = String((request.params as { message?: string }).message);
      asked.push(message);
      return message.includes(VICTIM) ? { action: "decline" } : { action: "accept", content: { confirm: true } };
    });
    return {
      asked,
      stderr: connected.stderr,
      call: async (args: Record<string, unknown>) =>
        (await connected.client.callTool({ name: "tidy.tidy", arguments: args })).structuredContent as Envelope,
      /** Closes the connection and the host; then the audit file is complete. */
      async audit() {
        await connected.close();
        return (await readFile(path.join(ws.dir, `${name}.audit.log`), "utf8")).split("\n").filter(Boolean);
      },
    };
  }

  const tidied = () => linesOf(ran);

  it("names path and its value in the question after a 5,000-character note: the user refuses, nothing runs", async () => {
    const served = await serve("attack", undefined);
    const answer = await served.call({ note: NOTE, path: VICTIM });
    expect(served.asked, served.stderr()).toHaveLength(1);
    const question = served.asked[0] as string;
    expect(question).toContain(`path: "${VICTIM}"`);
    // The note is named too, shortened in the middle with its length.
    expect(question).toMatch(/note: "tidy-up of \/tmp\/build-cache.*…a+" \(5,0\d\d chars\)/);
    expect(answer).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED" } });
    expect(await tidied()).not.toContain(`tidy ${VICTIM}`);
    await served.audit();
  });

  it("keeps argument contents out of every audit line when audit.arguments is off", async () => {
    const served = await serve("quiet", undefined);
    const answer = await served.call({ note: NOTE, path: "/tmp/build-cache" });
    expect(answer, served.stderr()).toMatchObject({ ok: true });
    const lines = await served.audit();
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect(JSON.parse(line)).toMatchObject({ kind: "audit", tool: "tidy.tidy" });
      expect(line).not.toContain("NOTE-CANARY");
      expect(line).not.toContain("build-cache");
    }
    expect(JSON.parse(lines.at(-1) as string)).toMatchObject({ outcome: "OK" });
  });

  it("writes the brief, naming every argument, into the audit line when audit.arguments is on", async () => {
    const served = await serve("loud", true);
    expect(await served.call({ note: NOTE, path: VICTIM })).toMatchObject({ ok: false });
    const lines = (await served.audit()).map((line) => JSON.parse(line) as { brief?: string; arguments?: unknown });
    expect(lines.at(-1)?.brief).toContain(`path: "${VICTIM}"`);
    expect(lines.at(-1)?.arguments).toEqual({ note: NOTE, path: VICTIM });
  });
});

import { writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Envelope } from "@skillport/core";
import { defineSkill, defineTool } from "@skillport/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { confirmCall, createTestHost } from "../src/test-host.js";
import { good } from "./fixtures/skills.js";

const counter = defineSkill({
  name: "count",
  config: z.object({ start: z.number().int().min(0).max(9).default(0) }).strict(),
  tools: [
    defineTool({
      name: "count_up",
      title: "Count up",
      description: "Count up from the configured start, reporting progress.",
      input: z.object({ to: z.number().int().min(1).max(5).describe("Where to stop") }).strict(),
      risk: "read_only",
      run: (p, ctx) => {
        const start = (ctx.config as { start: number }).start;
        for (let n = start; n < p.to; n++) ctx.progress(n + 1, p.to);
        return { counted: p.to - start };
      },
    }),
    defineTool({
      name: "delete_all",
      title: "Delete all",
      description: "Delete everything, after confirmation.",
      input: z.object({}).strict(),
      risk: "dangerous",
      buildBrief: () => "Delete everything",
      run: () => ({ deleted: "everything" }),
    }),
  ],
});

describe("createTestHost", () => {
  it("serves skills from memory through the whole pipeline to an SDK client", async () => {
    const t = await createTestHost({ skills: [{ register: counter, config: { start: 1 } }, good] });
    try {
      expect((await t.listTools()).map((tool) => tool.name)).toEqual([
        "count.count_up",
        "count.delete_all",
        "fixture.find_items",
      ]);
      const progress: unknown[] = [];
      const envelope = await t.callTool("count.count_up", { to: 3 }, { onProgress: (p) => progress.push(p) });
      expect(envelope).toMatchObject({ ok: true, data: { counted: 2 }, meta: { tool: "count.count_up" } });
      expect(progress.length).toBeGreaterThan(0);
      expect(t.host.registry.instances[0]).toMatchObject({ packageName: "skill-count", config: { start: 1 } });
    } finally {
      await t.close();
    }
  });

  it("answers a failing call with its envelope and rejects an unknown tool", async () => {
    const t = await createTestHost({ skills: [counter] });
    try {
      const refused: Envelope = await t.callTool("count.count_up", { to: 9 });
      expect(refused).toMatchObject({ ok: false, error: { code: "ARGUMENT_INVALID", field: "/to" } });
      await expect(t.callTool("count.nope")).rejects.toThrow(/unknown tool/);
    } finally {
      await t.close();
    }
  });

  it("serves the same skill twice under two ids, and honours include", async () => {
    const t = await createTestHost({
      separator: "_",
      skills: [
        { register: counter, mcp: "a", tools: { include: ["count_up"] } },
        { register: counter, mcp: "b" },
      ],
    });
    try {
      expect((await t.listTools()).map((tool) => tool.name)).toEqual(["a_count_up", "b_count_up", "b_delete_all"]);
    } finally {
      await t.close();
    }
  });

  it("serves a manifest file as skillport serve would", async () => {
    const dir = await import("node:fs/promises").then((fs) => fs.mkdtemp(path.join(os.tmpdir(), "test-host-")));
    const notes = path.resolve(import.meta.dirname, "../../../skills/skill-notes");
    const vault = path.resolve(import.meta.dirname, "../../../examples/vault");
    const file = path.join(dir, "skills.manifest.json");
    await writeFile(file, JSON.stringify({ skills: [{ path: notes, mcp: "n", config: { vault } }] }));
    const t = await createTestHost({ manifest: file });
    try {
      const envelope = await t.callTool<{ hits: unknown[] }>("n.search_notes", { keyword: "agent" });
      expect(envelope.ok && envelope.data.hits.length).toBeGreaterThan(0);
    } finally {
      await t.close();
    }
  });

  it("refuses to guess between skills and a manifest", async () => {
    await expect(createTestHost({})).rejects.toThrow("give exactly one of `skills` or `manifest`");
  });
});

describe("confirm", () => {
  const meta = { traceId: "t", durationMs: 0, tool: "x", toolVersion: "0" };
  const envelope = (extra: Record<string, unknown>): Envelope =>
    ({ message: "m", warnings: [], meta, ...extra }) as unknown as Envelope;

  it("repeats a call answered CONFIRMATION_REQUIRED with _confirm set to its operation id", async () => {
    const calls: Record<string, unknown>[] = [];
    const answer = await confirmCall(
      async (args) => {
        calls.push(args);
        return calls.length === 1
          ? envelope({
              ok: false,
              error: { code: "CONFIRMATION_REQUIRED", retryable: true, traceId: "t", operationId: "op-1" },
            })
          : envelope({ ok: true, data: "done", evidencePaths: [] });
      },
      "x.delete_all",
      { all: true },
    );
    expect(calls).toEqual([{ all: true }, { all: true, _confirm: "op-1" }]);
    expect(answer).toMatchObject({ ok: true, data: "done" });
  });

  it("returns any other answer as it is", async () => {
    const ok = envelope({ ok: true, data: 1, evidencePaths: [] });
    await expect(confirmCall(async () => ok, "x.y", {})).resolves.toBe(ok);
  });

  it("says so when CONFIRMATION_REQUIRED carries no operation id", async () => {
    const bare = envelope({ ok: false, error: { code: "CONFIRMATION_REQUIRED", retryable: true, traceId: "t" } });
    await expect(confirmCall(async () => bare, "x.y", {})).rejects.toThrow(/without error.operationId/);
  });

  it("confirms a dangerous tool through the host's real question to the user; a plain call is answered no", async () => {
    const t = await createTestHost({ skills: [{ register: counter, allow: ["delete_all"] }] });
    try {
      expect(await t.callTool("count.delete_all")).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED" } });
      expect(await t.confirm("count.delete_all")).toMatchObject({ ok: true, data: { deleted: "everything" } });
      expect(await t.callTool("count.delete_all")).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED" } });
      expect(t.questions).toEqual([
        "count.delete_all wants to: Delete everything. Allow it?",
        "count.delete_all wants to: Delete everything. Allow it?",
        "count.delete_all wants to: Delete everything. Allow it?",
      ]);
      expect(await t.confirm("count.count_up", { to: 1 })).toMatchObject({ ok: true });
      expect(await t.callTool("count.delete_all")).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED" } });
    } finally {
      await t.close();
    }
  });

  it("is refused for a dangerous tool the instance does not allow", async () => {
    const t = await createTestHost({ skills: [counter] });
    try {
      expect(await t.callTool("count.delete_all")).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED" } });
    } finally {
      await t.close();
    }
  });
});

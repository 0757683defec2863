// The confirm stage over a state store at its boundary: one that cannot be reached (when a token is checked, or
// already when one would be issued), and one that lost its memory. (Real Redis outages are replayed in
// replicas.test.ts; these pin the answers the stage gives.)
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildRegistry } from "../../src/registry/build-registry.js";
import type { Claim } from "../../src/state/store.js";
import { StoreUnavailableError } from "../../src/state/store.js";
import { ECHO, manifestOf, pipelineOf } from "../helpers.js";

/**
 * A store that answers `claim` (or rejects as unreachable), and counts what it was asked; its generation is read
 * while it is `reachable` at issue.
 */
function storeAnswering(claim: Claim | "unreachable", reachable = { atIssue: true }) {
  const asked: string[] = [];
  return {
    asked,
    generation: async () => {
      if (!reachable.atIssue) throw new StoreUnavailableError("the state store (redis) cannot be reached");
      return "generation-1";
    },
    claimOnce: async (key: string): Promise<Claim> => {
      asked.push(key);
      if (claim === "unreachable") throw new StoreUnavailableError("the state store (redis) cannot be reached");
      return claim;
    },
  };
}

async function wipeWith(store: ReturnType<typeof storeAnswering>) {
  const registry = await buildRegistry(manifestOf({ skills: [{ path: ECHO, allow: ["wipe"] }] }));
  const { pipeline } = pipelineOf(registry, { store, fallback: "operation-id" });
  const { runs } = (await import(path.join(ECHO, "index.js"))) as { runs: { wipe: string[] } };
  const alice = { caller: { id: "alice", scopes: [] } };
  const asked = await pipeline.call("echo.wipe", { target: "disk" }, alice);
  const id = asked.envelope.ok ? "" : (asked.envelope.error.operationId ?? "");
  return { pipeline, runs, alice, id };
}

describe("confirmations over a state store", () => {
  it("answer UNAVAILABLE (retryable) and run nothing while the store cannot be reached", async () => {
    const store = storeAnswering("unreachable");
    const { pipeline, runs, alice, id } = await wipeWith(store);
    const before = runs.wipe.length;
    const outcome = await pipeline.call("echo.wipe", { target: "disk", _confirm: id }, alice);
    expect(outcome.envelope).toMatchObject({ ok: false, error: { code: "UNAVAILABLE", retryable: true } });
    expect(outcome.envelope.message).toBe(
      "echo.wipe did not run: the confirmation cannot be checked against the shared state store, which cannot be reached now; retry shortly",
    );
    expect(runs.wipe.length).toBe(before);
    expect(store.asked).toHaveLength(1);
  });

  it("refuse an id the store cannot vouch for (issued before it lost its memory), and run nothing", async () => {
    const { pipeline, runs, alice, id } = await wipeWith(storeAnswering("forgotten"));
    const before = runs.wipe.length;
    const outcome = await pipeline.call("echo.wipe", { target: "disk", _confirm: id }, alice);
    expect(outcome.envelope).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED", field: "/_confirm" } });
    expect(outcome.envelope.message).toContain("was issued before the shared state store lost its data");
    expect(runs.wipe.length).toBe(before);
  });

  it("issue no operation id and ask no question while the store cannot be reached: UNAVAILABLE, and nothing runs", async () => {
    const store = storeAnswering("first", { atIssue: false });
    const { pipeline, runs, alice, id } = await wipeWith(store);
    const before = runs.wipe.length;
    expect(id).toBe("");
    const asked = await pipeline.call("echo.wipe", { target: "disk" }, alice);
    expect(asked.envelope).toMatchObject({ ok: false, error: { code: "UNAVAILABLE", retryable: true } });
    expect(asked.envelope.message).toBe(
      "echo.wipe did not run: no confirmation can be issued while the shared state store cannot be reached; retry shortly",
    );
    const question = await pipeline.call("echo.wipe", { target: "disk" }, { confirmation: { elicit: true } });
    expect(question.envelope).toMatchObject({ ok: false, error: { code: "UNAVAILABLE" } });
    expect(question.elicit).toBeUndefined();
    expect(runs.wipe.length).toBe(before);
    expect(store.asked).toEqual([]);
  });

  it("ask the store only about a token that holds: a forged or changed one never reaches it", async () => {
    const store = storeAnswering("first");
    const { pipeline, alice, id } = await wipeWith(store);
    await pipeline.call("echo.wipe", { target: "other", _confirm: id }, alice);
    await pipeline.call("echo.wipe", { target: "disk", _confirm: `${id.split(".")[0]}.forged` }, alice);
    expect(store.asked).toEqual([]);
    const ran = await pipeline.call("echo.wipe", { target: "disk", _confirm: id }, alice);
    expect(ran.envelope.ok).toBe(true);
    expect(store.asked).toEqual([expect.stringMatching(/^confirm:/)]);
  });

  it("ask the user again when an answer to a question cannot be checked as unused, and refuse while unreachable", async () => {
    const registry = await buildRegistry(manifestOf({ skills: [{ path: ECHO, allow: ["wipe"] }] }));
    for (const [claim, code] of [
      ["forgotten", "CONFIRMATION_REQUIRED"],
      ["unreachable", "UNAVAILABLE"],
    ] as const) {
      const { pipeline } = pipelineOf(registry, { store: storeAnswering(claim) });
      const asked = await pipeline.call("echo.wipe", { target: "disk" }, { confirmation: { elicit: true } });
      const answer = { action: "accept" as const, state: asked.elicit?.state };
      const outcome = await pipeline.call("echo.wipe", { target: "disk" }, { confirmation: { elicit: true, answer } });
      expect(outcome.envelope).toMatchObject({ ok: false, error: { code } });
    }
  });
});

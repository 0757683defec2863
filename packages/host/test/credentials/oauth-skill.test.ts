// A skill's OAuth credential per caller (`oauth.issuer` names an authorization server, not an MCP server): connected
// through the same flow as an upstream server's, and each caller's own token reaches the skill as ctx.token.
import { createHash } from "node:crypto";
import { defineSkill, defineTool } from "@skillport/core";
import { decodeJwt } from "jose";
import type { MockInstance } from "vitest";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { HostCredentials } from "../../src/credentials/open-credentials.js";
import type { OAuthWorld } from "./oauth-harness.js";
import { call, startWorld } from "./oauth-harness.js";

let world: OAuthWorld;
let credentials: HostCredentials;
const answers: string[] = [];
let warned: MockInstance;

beforeAll(async () => {
  warned = vi.spyOn(console, "warn");
  world = await startWorld({
    manifest: (as, upstream) => ({
      skills: [
        {
          package: "oauth-probe",
          credentials: {
            token: { perCaller: true, oauth: { issuer: as.issuer, resource: upstream.resource, scopes: ["mcp"] } },
          },
        },
      ],
    }),
    host: { modules: { "oauth-probe": { register: probe } } },
  });
  credentials = world.host.credentials as HostCredentials;
});

afterAll(async () => {
  warned.mockRestore();
  await world?.close();
});

describe("a skill's OAuth credential per caller", () => {
  it("connects through the skill's authorization server, and the skill sees each caller's own token", async () => {
    const slot = credentials.slots().find((s) => s.id === "probe.token");
    expect(slot).toMatchObject({ via: "oauth", oauth: { serverUrl: world.as.issuer } });
    for (const sub of ["alice", "bob"]) {
      const client = await world.clientOf(sub);
      const missing = await whoseToken(client);
      expect(missing.error?.code).toBe("CREDENTIALS_MISSING");
      await world.connect(missing.error?.connectUrl as string, sub);
      const kept = await credentials.vault.get("probe.token", `jwt:${sub}`);
      if (kept?.kind !== "oauth") throw new Error(`nothing kept for ${sub}`);
      // The manifest's resource indicator was asked for: the token is meant for it, and names the caller.
      expect(decodeJwt(kept.accessToken)).toMatchObject({ sub, aud: world.upstream.resource, iss: world.as.issuer });
      expect(await whoseToken(client)).toMatchObject({
        ok: true,
        data: { set: true, sha256: sha256(kept.accessToken) },
      });
      await client.close();
    }
    const kept = await Promise.all(["jwt:alice", "jwt:bob"].map((c) => credentials.vault.get("probe.token", c)));
    const [alice, bob] = kept.map((k) => (k?.kind === "oauth" ? k.accessToken : ""));
    expect(alice).not.toBe(bob);
    for (const token of [alice, bob, ...world.minted]) {
      expect(answers.join("\n").includes(token as string)).toBe(false);
      expect(world.logs.join("\n").includes(token as string)).toBe(false);
    }
    expect(warned).not.toHaveBeenCalled();
  });
});

// --- internal ---

/** A skill that says whether it was given a token, and its hash: never the token. */
const probe = defineSkill({
  name: "probe",
  credentials: { token: { description: "the caller's token", required: true } },
  tools: [
    defineTool({
      name: "whose_token",
      title: "Whose token",
      description: "Says whether a token was given, and its SHA-256.",
      risk: "read_only",
      input: { type: "object", properties: {}, additionalProperties: false },
      run: (_p, ctx) => ({ set: typeof ctx.token === "string" && ctx.token !== "", sha256: sha256(ctx.token ?? "") }),
    }),
  ],
});

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

async function whoseToken(client: Awaited<ReturnType<OAuthWorld["clientOf"]>>) {
  const answer = await call(client, "probe.whose_token");
  answers.push(JSON.stringify(answer));
  return answer as typeof answer & { data?: unknown };
}

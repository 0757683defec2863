import { describe, expect, it } from "vitest";
import { HostError } from "../../src/errors/host-error.js";
import { createRedactor, REDACTED } from "../../src/redaction/redactor.js";
import { openStores } from "../../src/state/open-store.js";
import { manifestOf, silentLogger } from "../helpers.js";

const PASSWORD = "s3cret-redis-password-123";

function open(state: unknown, env: Record<string, string> = {}) {
  const redactor = createRedactor();
  const manifest = manifestOf({ name: "svc", skills: [], ...(state === undefined ? {} : { state }) });
  // The task store opens beside the state store, from the same place.
  const opening = openStores(manifest, { redactor, logger: silentLogger(), env }).then(async ({ state, tasks }) => {
    expect(tasks.kind).toBe(state.kind);
    await tasks.close();
    return state;
  });
  return { redactor, opening };
}

describe("choosing the state store", () => {
  it("keeps state in this process by default, and for store: memory", async () => {
    for (const state of [undefined, { store: "memory" }]) {
      const store = await open(state).opening;
      expect(store.kind).toBe("memory");
      await store.close();
    }
  });

  it("takes the Redis URL from a secret source, and registers its password with the redactor", async () => {
    const url = `redis://default:${encodeURIComponent(PASSWORD)}@127.0.0.1:1/0`;
    const { redactor, opening } = open({ store: "redis", url: { env: "REDIS_URL" } }, { REDIS_URL: url });
    const store = await opening;
    expect(store.kind).toBe("redis");
    expect(redactor.string(`connecting to ${url}`)).toBe(`connecting to redis://default:${REDACTED}@127.0.0.1:1/0`);
    expect(redactor.string(`auth ${PASSWORD} failed`)).toBe(`auth ${REDACTED} failed`);
    // Only the password: the server's own URL on the same address stays readable in logs.
    expect(redactor.string("listening on http://127.0.0.1:1/mcp")).toBe("listening on http://127.0.0.1:1/mcp");
    await store.close();
  });

  it("lets SKILLPORT_STATE_URL choose Redis without editing the manifest", async () => {
    const store = await open(undefined, { SKILLPORT_STATE_URL: "redis://127.0.0.1:1" }).opening;
    expect(store.kind).toBe("redis");
    await store.close();
  });

  it("stops the host when the URL is missing or is not a Redis URL, naming the field, never the value", async () => {
    await expect(open({ store: "redis", url: { env: "REDIS_URL" } }).opening).rejects.toThrow(
      new HostError(
        "MANIFEST_INVALID",
        '[skillport] state.url: the environment variable REDIS_URL is not set; set it to the Redis URL (redis://host:6379), or remove "state" to keep state in each process',
      ),
    );
    const bad = `http://user:${PASSWORD}@example.com`;
    const { redactor, opening } = open({ store: "redis", url: { env: "REDIS_URL" } }, { REDIS_URL: bad });
    const error = (await opening.then(
      () => undefined,
      (e: unknown) => e,
    )) as Error;
    expect(error).toBeInstanceOf(HostError);
    expect(error.message).toContain("state.url: the value of the environment variable REDIS_URL is not a redis://");
    expect(error.message).not.toContain(PASSWORD);
    expect(redactor.string(bad)).toBe(REDACTED);
  });

  it("is part of the manifest's schema: a store it does not know is refused", () => {
    expect(() => manifestOf({ skills: [], state: { store: "memcached" } })).toThrow(/state/);
    expect(() => manifestOf({ skills: [], state: { store: "redis", url: "redis://inline:pw@host" } })).toThrow(/state/);
  });
});

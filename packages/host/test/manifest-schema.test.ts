// The manifest is defined once (src/manifest/manifest-schema.ts); manifest.schema.json is generated from it and
// committed. These tests hold the two together: the committed file is what the source generates, the defaults the
// schema publishes are the ones the loader fills in, and the source (whose types the host publishes) accepts and
// refuses exactly what the published schema does.
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import manifestSchema from "../manifest.schema.json" with { type: "json" };
import { MANIFEST_SCHEMA_FILE, manifestSchemaText } from "../src/manifest/manifest-json-schema.js";
import { ManifestSchema } from "../src/manifest/manifest-schema.js";
import { OBJECT_NAMES } from "../src/manifest/schema-blocks.js";
import { buildRegistry } from "../src/registry/build-registry.js";
import { createAjv } from "../src/schema/ajv.js";
import { resolveHttpConfig } from "../src/transports/http/config.js";
import { ECHO, manifestOf } from "./helpers.js";

const PACKAGE = fileURLToPath(new URL("../", import.meta.url));

type Schema = Record<string, unknown>;

describe("manifest.schema.json", () => {
  it("is what src/manifest/manifest-schema.ts generates (run `pnpm --filter @skillport/host generate` after a change)", async () => {
    const committed = await readFile(path.join(PACKAGE, MANIFEST_SCHEMA_FILE), "utf8");
    expect(committed).toBe(manifestSchemaText());
  });

  it("keeps what editors and error messages rely on: descriptions, $defs, closed objects, refused names", () => {
    const defs = manifestSchema.$defs as Record<string, Schema>;
    expect(Object.keys(defs)).toEqual(
      expect.arrayContaining(["skill", "secretSource", "http", "httpAuth", "staticToken", "jwtAuth", "safeName"]),
    );
    expect(manifestSchema).toMatchObject({ additionalProperties: false, required: ["skills"] });
    expect(defs.safeName).toMatchObject({ not: { enum: [...OBJECT_NAMES] } });
    expect(defs.secretSource).toMatchObject({ description: expect.any(String), oneOf: [{}, {}] });
    for (const [name, def] of Object.entries(defs)) {
      if (def.type === "object") expect(def.additionalProperties, name).toBe(false);
    }
    // Every field says what it is for, in the editor's hover and in the README's reference.
    const undescribed = fieldsOf(manifestSchema as Schema).filter(
      ([, field]) => field.description === undefined && field.$ref === undefined, // a $def describes itself
    );
    expect(undescribed.map(([where]) => where)).toEqual([
      // The override's fields are named like the tool's own, which they replace.
      "$defs.skill.tools.override.*.title",
      "$defs.skill.tools.override.*.description",
      "$defs.skill.tools.override.*.annotations.idempotentHint",
      "$defs.skill.tools.override.*.annotations.openWorldHint",
      "$defs.server.tools.override.*.title",
      "$defs.server.tools.override.*.description",
      "$defs.server.tools.override.*.annotations.idempotentHint",
      "$defs.server.tools.override.*.annotations.openWorldHint",
    ]);
  });
});

describe("the manifest's defaults", () => {
  it("are the ones the loader fills in, wherever the schema publishes one outside skills and http.auth", () => {
    // `credentials` has none of its own: the loader fills in its defaults once it is given (its keys).
    const loaded = manifestOf({ skills: [], credentials: { keys: [{ id: "1", env: "KEY" }] } }) as unknown as Schema;
    const published = defaultsOf(manifestSchema as Schema).filter(
      ([where]) => !where.startsWith("skills") && !where.startsWith("http.auth"),
    );
    expect(published.map(([where]) => where)).toEqual(
      expect.arrayContaining(["name", "separator", "confirmation.ttlSeconds", "http.port", "stdio.maxMessageBytes"]),
    );
    // `discovery` defaults to its mode alone ("all"); the loader fills in the object that also names the tools.
    const at = (where: string) => (where === "discovery" ? (loaded.discovery as Schema).mode : valueAt(loaded, where));
    for (const [where, value] of published) expect(at(where), where).toEqual(value);
  });

  it("inside http.auth are the ones the HTTP server applies", async () => {
    const manifest = manifestOf({
      skills: [],
      http: {
        auth: {
          tokens: [{ name: "ci", token: { env: "T" } }],
          jwt: { jwksUrl: "https://auth.example.com/jwks.json", issuer: "i", audience: "a" },
        },
      },
    });
    const config = await resolveHttpConfig(manifest, { env: { T: "a-token-long-enough-to-count" } });
    const defs = manifestSchema.$defs;
    expect(config.auth?.tokens[0]?.scopes).toEqual(defs.staticToken.properties.scopes.default);
    expect(config.auth?.jwt?.clockToleranceSec).toBe(defs.jwtAuth.properties.clockToleranceSec.default);
  });
});

describe("a skill entry's defaults", () => {
  it("are the ones the registry applies", async () => {
    const skill = manifestSchema.$defs.skill.properties;
    const registry = await buildRegistry(manifestOf({ skills: [{ path: ECHO }] }));
    expect(skill.enabled.default).toBe(true);
    expect(registry.instances).toHaveLength(1);
    expect(registry.instances[0]).toMatchObject({
      concurrency: skill.concurrency.default,
      queue: skill.queue.default,
      isolation: skill.isolation.default,
    });
    expect(skill.prefix.default).toBe(true);
    expect(registry.tools.has("echo.echo")).toBe(true);
  });
});

describe("the manifest's source and its published schema", () => {
  const validate = createAjv().compile(manifestSchema);
  const entry = (extra: Schema) => ({ skills: [{ package: "a", ...extra }] });
  const http = (settings: Schema) => ({ skills: [], http: settings });

  it.each([
    ["the smallest manifest", { skills: [] }],
    [
      "every top-level field",
      {
        $schema: "./node_modules/@skillport/host/manifest.schema.json",
        name: "my-skills",
        version: "1.0.0",
        separator: "__",
        audit: { file: "./audit.log", arguments: true },
        confirmation: { secret: { file: "./secret" }, ttlSeconds: 60, fallback: "operation-id" },
        stdio: { maxMessageBytes: 1024 * 1024 },
        skills: [],
      },
    ],
    [
      "every skill field",
      entry({
        version: "^0.1.0",
        mcp: "notes",
        enabled: false,
        config: { vault: "./vault", nested: { any: [1, 2] } },
        tools: {
          include: ["search_notes"],
          rename: { search_notes: "find_notes" },
          override: { search_notes: { title: "Find", annotations: { openWorldHint: true } } },
        },
        credentials: { token: { env: "GITHUB_TOKEN" }, key: { file: "./key" } },
        timeoutMs: 1000,
        concurrency: 2,
        queue: 0,
        isolation: "process",
        memoryMb: 128,
        allow: ["run_command"],
        scopes: { "*": ["notes:read"], create_study_task: ["notes:write"] },
        prefix: false,
      }),
    ],
    [
      "every http field",
      http({
        host: "0.0.0.0",
        port: 0,
        path: "/mcp",
        publicUrl: "https://skills.example.com/mcp",
        allowedHosts: ["skills.example.com", "[::1]", "*"],
        allowedOrigins: ["https://app.example.com", "http://localhost:5173"],
        maxBodyBytes: 4096,
        rateLimit: { requestsPerMinute: 0, burst: 5 },
        timeouts: { headersMs: 1, requestMs: 2, idleMs: 3 },
        shutdownGraceMs: 0,
        auth: {
          tokens: [{ name: "ci-bot", scopes: ["notes:read"], token: { env: "SKILLPORT_TOKEN" } }],
          jwt: {
            jwksUrl: "https://auth.example.com/jwks.json",
            issuer: "https://auth.example.com",
            audience: ["https://skills.example.com/mcp"],
            resource: "https://skills.example.com/mcp",
            algorithms: ["RS256", "ES256"],
            clockToleranceSec: 0,
          },
        },
      }),
    ],
  ])("both accept %s", (_case, manifest) => {
    expect(validate(manifest), JSON.stringify(validate.errors)).toBe(true);
    expect(ManifestSchema.safeParse(manifest).error).toBeUndefined();
  });

  it.each([
    ["an unknown top-level field", { skills: [], bogus: 1 }],
    ["no skills", {}],
    ["an empty name", { skills: [], name: "" }],
    ["a separator not in the list", { skills: [], separator: "/" }],
    ["a fractional ttl", { skills: [], confirmation: { ttlSeconds: 10.5 } }],
    ["a secret from both env and file", { skills: [], confirmation: { secret: { env: "A", file: "b" } } }],
    ["a secret given literally", { skills: [], confirmation: { secret: "hunter2" } }],
    ["an unknown skill field", entry({ mpc: "x" })],
    ["a package name with capitals", { skills: [{ package: "Not-A-Package" }] }],
    ["an mcp id with a space", entry({ mcp: "no spaces" })],
    ["a tool listed twice", entry({ tools: { include: ["a", "a"] } })],
    ["a dangerous tool allowed twice", entry({ allow: ["x", "x"] })],
    ["a rename to a dotted name", entry({ tools: { rename: { a: "b.c" } } })],
    ["an override hint for the risk", entry({ tools: { override: { a: { annotations: { readOnlyHint: false } } } } })],
    ["a credential named toString", entry({ credentials: { toString: { env: "X" } } })],
    ["a rename of constructor", entry({ tools: { rename: { constructor: "x" } } })],
    ["scopes for an empty tool name", entry({ scopes: { "": ["a"] } })],
    ["a scope with a space", entry({ scopes: { a: ["a b"] } })],
    ["a scope listed twice", entry({ scopes: { a: ["s", "s"] } })],
    ["a queue below zero", entry({ queue: -1 })],
    ["an isolation not in the list", entry({ isolation: "vm" })],
    ["a port beyond 65535", http({ port: 70000 })],
    ["a path without a slash", http({ path: "mcp" })],
    ["a public URL with a user", http({ publicUrl: "https://user@skills.example.com/mcp" })],
    ["an origin with a path", http({ allowedOrigins: ["https://app.example.com/"] })],
    ["a host with a port", http({ allowedHosts: ["skills.example.com:443"] })],
    ["a body limit below 1 KiB", http({ maxBodyBytes: 10 })],
    ["an empty token list", http({ auth: { tokens: [] } })],
    ["a token name with a space", http({ auth: { tokens: [{ name: "a b", token: { env: "T" } }] } })],
    ["a JWT without an audience", http({ auth: { jwt: { issuer: "i", jwksFile: "j" } } })],
    ["a JWT with an empty audience list", http({ auth: { jwt: { issuer: "i", audience: [], jwksFile: "j" } } })],
    ["a JWKS URL that is no URL", http({ auth: { jwt: { issuer: "i", audience: "a", jwksUrl: "not a url" } } })],
    ["a message limit below 64 KiB", { skills: [], stdio: { maxMessageBytes: 1000 } }],
  ])("both refuse %s", (_case, manifest) => {
    expect(validate(manifest)).toBe(false);
    expect(ManifestSchema.safeParse(manifest).success).toBe(false);
  });

  it("differ on a key named __proto__ only in how they refuse it: the schema refuses it, zod drops it", () => {
    const manifest = entry({ credentials: JSON.parse('{ "__proto__": { "env": "X" } }') });
    expect(validate(manifest)).toBe(false);
    const parsed = ManifestSchema.parse(manifest);
    expect(Object.keys(parsed.skills[0]?.credentials ?? {})).toEqual([]);
  });
});

describe("the host at run time", () => {
  it("never imports zod for the manifest: it validates against the generated JSON Schema", async () => {
    const dist = path.join(PACKAGE, "dist");
    const files = (await readdir(dist)).filter((name) => name.endsWith(".js"));
    expect(files).toContain("index.js");
    for (const name of files) {
      const source = await readFile(path.join(dist, name), "utf8");
      expect(source, name).not.toMatch(/from\s*["']zod["']|import\(\s*["']zod["']\s*\)/);
    }
  });
});

// --- internal ---

/** Every field of the schema, as `where` (`http.port`, `$defs.skill.tools.rename.*`) and its schema. */
function fieldsOf(root: Schema): [string, Schema][] {
  const out: [string, Schema][] = [];
  const walk = (schema: Schema, where: string) => {
    for (const [name, field] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
      const at = where === "" ? name : `${where}.${name}`;
      out.push([at, field]);
      walk(field, at);
    }
    if (typeof schema.additionalProperties === "object") walk(schema.additionalProperties as Schema, `${where}.*`);
  };
  walk(root, "");
  for (const [name, def] of Object.entries((root.$defs ?? {}) as Record<string, Schema>)) walk(def, `$defs.${name}`);
  return out;
}

/** Every default reachable from the root through properties and $refs, as [`http.port`, 3333]. */
function defaultsOf(root: Schema): [string, unknown][] {
  const out: [string, unknown][] = [];
  const walk = (schema: Schema, where: string) => {
    if ("default" in schema) out.push([where, schema.default]);
    const ref = typeof schema.$ref === "string" ? schema.$ref.replace("#/$defs/", "") : undefined;
    const target = ref === undefined ? schema : (root.$defs as Record<string, Schema>)[ref];
    if (target === undefined) throw new Error(`no $def for ${String(schema.$ref)}`);
    if (target !== schema && "default" in target && !("default" in schema)) out.push([where, target.default]);
    for (const [name, field] of Object.entries((target.properties ?? {}) as Record<string, Schema>)) {
      walk(field, where === "" ? name : `${where}.${name}`);
    }
  };
  walk(root, "");
  return out;
}

function valueAt(object: Schema, where: string): unknown {
  return where.split(".").reduce<unknown>((value, key) => (value as Schema | undefined)?.[key], object);
}

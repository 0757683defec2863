import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type { ValidateFunction } from "ajv";
import { describe, expect, it } from "vitest";
import manifestSchema from "../manifest.schema.json" with { type: "json" };
import { createAjv } from "../src/schema/ajv.js";

// The build compiles manifest.schema.json ahead of time (dist/manifest-validator.cjs); the host loads it instead of
// compiling at start-up. It must judge every manifest exactly as the validator compiled at run time does.

const PRECOMPILED = fileURLToPath(new URL("../dist/manifest-validator.cjs", import.meta.url));
const ROOT_MANIFEST = fileURLToPath(new URL("../../../skills.manifest.json", import.meta.url));

const MANIFESTS: unknown[] = [
  JSON.parse(readFileSync(ROOT_MANIFEST, "utf8")),
  { skills: [] },
  { skills: [{ path: "./a", mcp: "a", timeoutMs: 1000, concurrency: 2 }], http: { port: 8080 } },
  { skills: [{ package: "x" }], audit: { file: "./audit.log", arguments: true }, separator: "_" },
  {},
  { skills: "none" },
  { skills: [{ path: 1 }], extra: true },
  { skills: [{ package: "x", timeoutMs: -5, scopes: { t: [1] } }], http: { port: "eighty" } },
  { skills: [{ package: "x" }], http: { auth: { jwt: { jwksUrl: "not a url" } } } },
  { skills: [{ package: "x" }], stdio: { maxMessageBytes: 0 }, confirmation: { fallback: "maybe" } },
];

const judged = (validate: ValidateFunction, manifest: unknown) => {
  const data = structuredClone(manifest);
  const valid = validate(data);
  const errors = (validate.errors ?? []).map((e) => ({ at: e.instancePath, keyword: e.keyword, params: e.params }));
  return { valid, errors, data };
};

describe("the manifest validator compiled at build time", () => {
  it("is in dist after the build", () => {
    expect(existsSync(PRECOMPILED)).toBe(true);
  });

  it("judges every manifest as the one compiled at run time: validity, errors and filled-in defaults", () => {
    const precompiled = createRequire(import.meta.url)(PRECOMPILED) as ValidateFunction;
    const compiled = createAjv({ trustedSchemas: true }).compile(manifestSchema);
    for (const manifest of MANIFESTS) {
      expect(judged(precompiled, manifest)).toEqual(judged(compiled, manifest));
    }
    expect(MANIFESTS.map((m) => judged(compiled, m).valid)).toContain(false);
    expect(MANIFESTS.map((m) => judged(compiled, m).valid)).toContain(true);
  });
});

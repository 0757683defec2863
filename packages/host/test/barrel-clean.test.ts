import path from "node:path";
import { fileURLToPath } from "node:url";
import { importsOf, staticImportsOf } from "@skillport/test-utils";
import { describe, expect, it } from "vitest";

const DIST = fileURLToPath(new URL("../dist/", import.meta.url));

/** Imported by the root entry only when first needed. */
const LAZY = [
  "import-meta-resolve",
  "@skillport/core/confine",
  "@skillport/core/sandbox",
  // The SDK client's OAuth: when a caller first connects a slot through OAuth or has their token exchanged.
  "@modelcontextprotocol/client",
];

describe("the serving entries of @skillport/host", () => {
  it("load the SDK's Skills extension only when a client first asks for skills", async () => {
    for (const entry of ["stdio.js", "http.js", "testing.js"]) {
      const loaded = await staticImportsOf(path.join(DIST, entry));
      expect(loaded, entry).toContain("@modelcontextprotocol/server");
      expect(loaded, entry).not.toContain("@modelcontextprotocol/server/ext/skills");
      expect(await importsOf(path.join(DIST, entry)), entry).toContain("@modelcontextprotocol/server/ext/skills");
    }
  });

  it("name the extension and its methods as the SDK does", async () => {
    const sdk = await import("@modelcontextprotocol/server/ext/skills");
    const ours = await import("../src/mcp/skills.js");
    for (const name of [
      "SKILLS_EXTENSION_ID",
      "SKILLS_LIST_METHOD",
      "SKILLS_GET_METHOD",
      "RESOURCES_DIRECTORY_READ_METHOD",
      "DIRECTORY_MIME_TYPE",
    ] as const) {
      expect(ours[name], name).toBe(sdk[name]);
    }
  });
});

describe("OpenTelemetry", () => {
  it("is imported by no entry, static or dynamic: the SDK is required only when tracing is configured", async () => {
    for (const entry of ["index.js", "stdio.js", "http.js", "testing.js", "surface.js"]) {
      const imports = await importsOf(path.join(DIST, entry));
      expect(
        imports.filter((s) => s.startsWith("@opentelemetry")),
        entry,
      ).toEqual([]);
    }
  });
});

describe("the root entry of @skillport/host", () => {
  it("imports no MCP SDK (but its client's OAuth, when first needed) and nothing HTTP-only: transports live behind subpaths", async () => {
    const imports = await importsOf(path.join(DIST, "index.js"));
    expect(imports).toContain("pino");
    expect(
      imports.filter((s) => s.startsWith("@modelcontextprotocol") && s !== "@modelcontextprotocol/client"),
    ).toEqual([]);
    expect(imports.filter((s) => ["jose", "prom-client", "http", "net"].includes(s))).toEqual([]);
  });

  it("loads at start-up nothing a server that only lists its tools does not need", async () => {
    const imports = await importsOf(path.join(DIST, "index.js"));
    // ajv: required when a schema is first compiled (a tool's first call, a config). The others are imported with
    // the first package needing them: a resolver for "exports" Node's rules must decide, a SKILL.md, a child process.
    expect(imports.filter((s) => s.startsWith("ajv"))).toEqual([]);
    const loaded = await staticImportsOf(path.join(DIST, "index.js"));
    expect(loaded).toContain("pino");
    expect(loaded.filter((s) => LAZY.includes(s))).toEqual([]);
    expect(LAZY.filter((s) => imports.includes(s))).toEqual(LAZY);
  });

  it("exports at most 15 values, each declared on purpose", async () => {
    const host = await import("../dist/index.js");
    expect(Object.keys(host).sort()).toEqual([
      "DEFAULT_MANIFEST",
      "HTTP_DEFAULTS",
      "HostError",
      "REDACTED",
      "StoreUnavailableError",
      "buildRegistry",
      "createHost",
      "createLogger",
      "createMemoryStore",
      "createMemoryTaskStore",
      "createRedisStore",
      "createRedisTaskStore",
      "installProcessGuards",
      "loadManifest",
      "parseManifest",
    ]);
  });

  it("and leaves a skill's surface, the lock and the host's checks to the surface entry, which imports no SDK either", async () => {
    const host = await import("../dist/index.js");
    expect(Object.keys(host)).not.toContain("surfaceOf");
    const surface = await import("../dist/surface.js");
    expect(Object.keys(surface)).toEqual(
      expect.arrayContaining(["surfaceOf", "compileSchema", "readLock", "hashOf", "instanceConfig"]),
    );
    const imports = await importsOf(path.join(DIST, "surface.js"));
    expect(imports.filter((s) => s.startsWith("@modelcontextprotocol"))).toEqual([]);
  });

  it("while the testing entry serves a host in process with the SDK, beside the test kit's pieces", async () => {
    const imports = await importsOf(path.join(DIST, "testing.js"));
    expect(imports).toContain("@modelcontextprotocol/server");
    const testing = await import("../dist/testing.js");
    expect(Object.keys(testing).sort()).toEqual(["connectInMemory", "createRedactor", "credentialAccess"]);
  });

  it("while the stdio entry does", async () => {
    const imports = await importsOf(path.join(DIST, "stdio.js"));
    expect(imports).toContain("@modelcontextprotocol/server/stdio");
  });

  it("and the http entry brings the SDK, jose and prom-client", async () => {
    const imports = await importsOf(path.join(DIST, "http.js"));
    expect(imports).toEqual(expect.arrayContaining(["@modelcontextprotocol/server", "jose", "prom-client", "http"]));
  });
});

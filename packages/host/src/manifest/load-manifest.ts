import { readFile } from "node:fs/promises";
import path from "node:path";
import type { ValidateFunction } from "ajv";
import manifestSchema from "../../manifest.schema.json" with { type: "json" };
import { createAjv } from "../ajv.js";
import { HostError, messageOf } from "../errors.js";
import { DEFAULT_MANIFEST, HTTP_DEFAULTS, MANIFEST_DEFAULTS, STDIO_DEFAULTS } from "./defaults.js";
import { describeAjvErrors } from "./format-ajv-errors.js";
import type { HttpSettings, LoadedHttpSettings, LoadedManifest, Manifest } from "./manifest.js";

export { DEFAULT_MANIFEST, HTTP_DEFAULTS };

/**
 * Reads a manifest file and checks it against manifest.schema.json. Every problem is reported at once, each
 * naming its place (`skills[1].mcp`) and the fix.
 *
 * @example
 * const manifest = await loadManifest("./skills.manifest.json");
 */
export async function loadManifest(file: string = DEFAULT_MANIFEST): Promise<LoadedManifest> {
  const absolute = path.resolve(file);
  let text: string;
  try {
    text = await readFile(absolute, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new HostError(
      "MANIFEST_NOT_FOUND",
      code === "ENOENT"
        ? `[skillport] no manifest at ${absolute}; create ${DEFAULT_MANIFEST} there or pass --manifest <path>`
        : `[skillport] cannot read the manifest ${absolute}: ${messageOf(error)}`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new HostError("MANIFEST_INVALID", `[skillport] ${absolute} is not valid JSON: ${messageOf(error)}`);
  }
  return parseManifest(json, absolute);
}

/** Compiled once per process, on first use, from manifest.schema.json (generated from manifest-schema.ts). */
let validateManifest: ValidateFunction<Manifest> | undefined;

/** Checks an already-parsed manifest; `file` is where relative paths resolve from. */
export function parseManifest(json: unknown, file: string): LoadedManifest {
  validateManifest ??= createAjv({ trustedSchemas: true }).compile<Manifest>(manifestSchema);
  const validate = validateManifest;
  const where = path.basename(file);
  if (!validate(json)) {
    const problems = describeAjvErrors(validate.errors ?? [], "path").map((p) => `${p.where}: ${p.message}`);
    throw new HostError("MANIFEST_INVALID", `[skillport] ${where} is invalid (${file}):`, problems);
  }
  const problems: string[] = [];
  json.skills.forEach((entry, index) => {
    const hasPackage = entry.package !== undefined;
    const hasPath = entry.path !== undefined;
    if (hasPackage === hasPath) {
      problems.push(
        `skills[${index}]: give exactly one of "package" (an installed npm package) or "path" (a local skill folder)`,
      );
    }
    const { include, exclude } = entry.tools ?? {};
    if (include !== undefined && exclude !== undefined) {
      problems.push(`skills[${index}].tools: use "include" or "exclude", not both`);
    }
  });
  problems.push(...httpProblems(json.http));
  if (problems.length > 0) {
    throw new HostError("MANIFEST_INVALID", `[skillport] ${where} is invalid (${file}):`, problems);
  }
  return {
    file,
    dir: path.dirname(file),
    name: json.name ?? MANIFEST_DEFAULTS.name,
    version: json.version ?? MANIFEST_DEFAULTS.version,
    separator: json.separator ?? MANIFEST_DEFAULTS.separator,
    audit: {
      file: json.audit?.file === undefined ? undefined : path.resolve(path.dirname(file), json.audit.file),
      arguments: json.audit?.arguments ?? MANIFEST_DEFAULTS.auditArguments,
    },
    confirmation: {
      secret: json.confirmation?.secret,
      ttlSeconds: json.confirmation?.ttlSeconds ?? MANIFEST_DEFAULTS.confirmationTtlSeconds,
      fallback: json.confirmation?.fallback ?? MANIFEST_DEFAULTS.confirmationFallback,
    },
    skills: json.skills,
    http: httpDefaults(json.http),
    stdio: { maxMessageBytes: json.stdio?.maxMessageBytes ?? STDIO_DEFAULTS.maxMessageBytes },
  };
}

// --- internal ---

/**
 * What the schema cannot say about `http`: one key source, distinct token names, origins as browsers send them, one
 * public URL, consistent timeouts.
 */
function httpProblems(http: HttpSettings | undefined): string[] {
  if (http === undefined) return [];
  const problems: string[] = [];
  const jwt = http.auth?.jwt;
  if (jwt !== undefined && (jwt.jwksUrl === undefined) === (jwt.jwksFile === undefined)) {
    problems.push('http.auth.jwt: give exactly one of "jwksUrl" (the issuer\'s key set URL) or "jwksFile"');
  }
  const names = new Set<string>();
  for (const [index, token] of (http.auth?.tokens ?? []).entries()) {
    if (names.has(token.name)) {
      problems.push(`http.auth.tokens[${index}].name: "${token.name}" is used twice; each token needs its own name`);
    }
    names.add(token.name);
  }
  for (const [index, origin] of (http.allowedOrigins ?? []).entries()) {
    const canonical = canonicalOrigin(origin);
    if (canonical !== origin) {
      problems.push(
        `http.allowedOrigins[${index}]: "${origin}" is not an origin as a browser sends it${canonical === undefined ? "" : `; write "${canonical}"`}`,
      );
    }
  }
  const resource = jwt?.resource;
  if (http.publicUrl !== undefined && resource !== undefined && http.publicUrl !== resource) {
    problems.push(
      `http.publicUrl: "${http.publicUrl}" and http.auth.jwt.resource "${resource}" name different URLs; the server has one, so keep only publicUrl`,
    );
  }
  const { headersMs = HTTP_DEFAULTS.headersMs, requestMs = HTTP_DEFAULTS.requestMs } = http.timeouts ?? {};
  if (headersMs > requestMs) {
    problems.push(`http.timeouts.headersMs: ${headersMs} must not exceed requestMs (${requestMs})`);
  }
  return problems;
}

function httpDefaults(http: HttpSettings = {}): LoadedHttpSettings {
  const requestsPerMinute = http.rateLimit?.requestsPerMinute ?? HTTP_DEFAULTS.requestsPerMinute;
  return {
    host: http.host ?? HTTP_DEFAULTS.host,
    port: http.port ?? HTTP_DEFAULTS.port,
    path: http.path ?? HTTP_DEFAULTS.path,
    publicUrl: http.publicUrl,
    allowedHosts: http.allowedHosts,
    allowedOrigins: http.allowedOrigins ?? [...HTTP_DEFAULTS.allowedOrigins],
    maxBodyBytes: http.maxBodyBytes ?? HTTP_DEFAULTS.maxBodyBytes,
    rateLimit: { requestsPerMinute, burst: http.rateLimit?.burst ?? Math.max(1, requestsPerMinute) },
    timeouts: {
      headersMs: http.timeouts?.headersMs ?? HTTP_DEFAULTS.headersMs,
      requestMs: http.timeouts?.requestMs ?? HTTP_DEFAULTS.requestMs,
      idleMs: http.timeouts?.idleMs ?? HTTP_DEFAULTS.idleMs,
    },
    shutdownGraceMs: http.shutdownGraceMs ?? HTTP_DEFAULTS.shutdownGraceMs,
    sessions: http.sessions ?? HTTP_DEFAULTS.sessions,
    auth: { tokens: http.auth?.tokens ?? [], jwt: http.auth?.jwt },
  };
}

/**
 * An origin as a browser serializes it in the Origin header (lower case, no default port, no path), or undefined
 * when the text is not one. Other schemes (browser extensions) have no serialization of their own: taken as written.
 */
function canonicalOrigin(text: string): string | undefined {
  try {
    const url = new URL(text);
    if (url.protocol !== "http:" && url.protocol !== "https:") return text;
    if (url.username !== "" || url.password !== "" || url.search !== "" || url.hash !== "") return undefined;
    return url.origin;
  } catch {
    return undefined;
  }
}

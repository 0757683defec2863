import { readFile } from "node:fs/promises";
import path from "node:path";
import type { ErrorObject, ValidateFunction } from "ajv";
import { cannotStart, HostError, messageOf } from "../errors/host-error.js";
import { fromSources, requireFromHost } from "../package/package-files.js";
import { createAjv } from "../schema/ajv.js";
import { describeAjvErrors } from "../schema/format-ajv-errors.js";
import {
  CREDENTIAL_DEFAULTS,
  DEFAULT_MANIFEST,
  DISCOVERY_DEFAULTS,
  HTTP_DEFAULTS,
  MANIFEST_DEFAULTS,
  STATE_DEFAULTS,
  STDIO_DEFAULTS,
  TASK_DEFAULTS,
} from "./defaults.js";
import type {
  Discovery,
  DiscoverySettings,
  HttpSettings,
  LoadedHttpSettings,
  LoadedManifest,
  Manifest,
  ServerEntry,
  SkillEntry,
} from "./manifest.js";
import { parseManifestText } from "./manifest-text.js";

/**
 * Reads a manifest file (JSON with comments and trailing commas) and checks it against manifest.schema.json. Every
 * problem is reported at once, each naming its place (`skills[1].mcp`) and the fix.
 *
 * @example
 * const manifest = await loadManifest("./skills.manifest.json");
 */
export async function loadManifest(file: string = DEFAULT_MANIFEST): Promise<LoadedManifest> {
  return settled(await readManifest(file));
}

/** Checks an already-parsed manifest; `file` is where relative paths resolve from. */
export function parseManifest(json: unknown, file: string): LoadedManifest {
  return settled(inspectManifest(json, file));
}

/** A manifest file as read, with every problem found in it; createHost adds the problems its skills have. */
export interface ManifestReading {
  /** The manifest's absolute path. */
  file: string;
  /**
   * What can still be built when there are problems: each skill entry with a problem of its own is set aside
   * (disabled) and each invalid top-level field takes its default, so that loading the other skills can find
   * their problems too. Undefined when nothing can be built (the manifest is not an object, or `skills` is unusable
   * beyond repair). The manifest itself when there is no problem.
   */
  manifest: LoadedManifest | undefined;
  problems: string[];
}

/** The error of a manifest with problems of its own, listing every one. */
export function manifestError(file: string, problems: readonly string[]): HostError {
  return cannotStart("MANIFEST_INVALID", file, problems);
}

/**
 * Reads a manifest file without stopping at its first problem (see {@link ManifestReading}). A file that cannot
 * be read, or is not JSON (comments and trailing commas allowed), has nothing more to find: that throws at once.
 */
export async function readManifest(file: string = DEFAULT_MANIFEST): Promise<ManifestReading> {
  const absolute = path.resolve(file);
  let text: string;
  try {
    text = await readFile(absolute, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // The default was looked for where the command runs; a path that was given names a file that is not there.
    const fix =
      file === DEFAULT_MANIFEST
        ? `create ${DEFAULT_MANIFEST} there or pass --manifest <path>`
        : "check the path given as the manifest (a relative one is read from the current folder)";
    throw new HostError(
      "MANIFEST_NOT_FOUND",
      code === "ENOENT"
        ? `[skillport] no manifest at ${absolute}; ${fix}`
        : `[skillport] cannot read the manifest ${absolute}: ${messageOf(error)}`,
    );
  }
  return inspectManifest(parseManifestText(text, absolute), absolute);
}

// --- internal ---

/** Compiled once per process, on first use, from manifest.schema.json (generated from manifest-schema.ts). */
let validateManifest: ValidateFunction<Manifest> | undefined;

/**
 * The manifest's validator: the one the build compiled ahead of time (dist/manifest-validator.cjs, ajv standalone
 * code from manifest.schema.json, see scripts/generate-validators.mjs); run from the TypeScript sources (the
 * tests), compiled now from the schema, which a build's validator may predate.
 */
function manifestValidator(): ValidateFunction<Manifest> {
  if (!fromSources) return requireFromHost("./dist/manifest-validator.cjs") as ValidateFunction<Manifest>;
  // The schema itself (40 KB) is read only here: a built host never evaluates it at start-up.
  const manifestSchema = requireFromHost("./manifest.schema.json") as object;
  return createAjv({ trustedSchemas: true }).compile<Manifest>(manifestSchema);
}

/** Stands in for a skill entry with problems of its own: disabled, so the rest of the manifest can be built. */
const setAsideEntry = (): SkillEntry => ({ enabled: false });

/** Every problem of a parsed manifest: its schema's, then what the schema cannot say. */
function inspectManifest(json: unknown, file: string): ManifestReading {
  validateManifest ??= manifestValidator();
  const validate = validateManifest;
  const problems: string[] = [];
  const setAside = new Set<number>();
  let usable: unknown = json;
  if (!validate(json)) {
    const errors = validate.errors ?? [];
    problems.push(...describeAjvErrors(errors, "path").map((p) => `${p.where}: ${p.message}`));
    usable = withoutInvalidParts(json, errors, setAside);
    // What is left is checked again: a manifest that is still invalid is not built at all.
    if (usable === undefined || !validate(usable)) return { file, manifest: undefined, problems };
  }
  const manifest = usable as Manifest;
  manifest.skills.forEach((entry, index) => {
    if (setAside.has(index)) return;
    const before = problems.length;
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
    if (problems.length > before) setAside.add(index);
  });
  if (typeof manifest.discovery === "object" && manifest.discovery.searchTool === manifest.discovery.callTool) {
    problems.push(
      `discovery: searchTool and callTool are both "${manifest.discovery.searchTool}"; give each its own name`,
    );
  }
  problems.push(...serverProblems(manifest.servers ?? []));
  problems.push(...httpProblems(manifest.http));
  const skills = manifest.skills.map((entry, index) => (setAside.has(index) ? setAsideEntry() : entry));
  return { file, manifest: loaded({ ...manifest, skills }, file), problems };
}

/** A reading with no problem is its manifest; otherwise every problem, in one error. */
function settled(reading: ManifestReading): LoadedManifest {
  if (reading.problems.length > 0 || reading.manifest === undefined) {
    throw manifestError(reading.file, reading.problems);
  }
  return reading.manifest;
}

/**
 * The manifest without the parts the schema rejected: a skill entry with an error inside is set aside (its index
 * added to `setAside`), any other top-level field at fault is dropped (its default applies). Undefined when the
 * manifest is not an object at all.
 */
function withoutInvalidParts(
  json: unknown,
  errors: readonly ErrorObject[],
  setAside: Set<number>,
): Record<string, unknown> | undefined {
  if (typeof json !== "object" || json === null || Array.isArray(json)) return undefined;
  const copy: Record<string, unknown> = { ...json };
  for (const error of errors) {
    const [top, index] = placeOf(error);
    if (top === undefined) return undefined;
    if (top !== "skills") delete copy[top];
    else if (index !== undefined && /^\d+$/.test(index)) setAside.add(Number(index));
    else copy.skills = [];
  }
  if (Array.isArray(copy.skills)) {
    copy.skills = copy.skills.map((entry: unknown, i) => (setAside.has(i) ? setAsideEntry() : entry));
  }
  return copy;
}

/** The first two segments of the place an ajv error is about: a top-level field, and the index below `skills`. */
function placeOf(error: ErrorObject): [string | undefined, string | undefined] {
  const p = error.params as Record<string, unknown>;
  const key =
    error.keyword === "additionalProperties"
      ? p.additionalProperty
      : error.keyword === "required"
        ? p.missingProperty
        : error.propertyName;
  const segments = error.instancePath
    .split("/")
    .slice(1)
    .map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"));
  if (key !== undefined) segments.push(String(key));
  return [segments[0], segments[1]];
}

/** The manifest with every default filled in. */
function loaded(json: Manifest, file: string): LoadedManifest {
  return {
    file,
    dir: path.dirname(file),
    name: json.name ?? MANIFEST_DEFAULTS.name,
    version: json.version ?? MANIFEST_DEFAULTS.version,
    separator: json.separator ?? MANIFEST_DEFAULTS.separator,
    discovery: discoveryOf(json.discovery),
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
    servers: json.servers ?? [],
    http: httpDefaults(json.http),
    stdio: { maxMessageBytes: json.stdio?.maxMessageBytes ?? STDIO_DEFAULTS.maxMessageBytes },
    tasks: {
      ttlMs: json.tasks?.ttlMs ?? TASK_DEFAULTS.ttlMs,
      pollIntervalMs: json.tasks?.pollIntervalMs ?? TASK_DEFAULTS.pollIntervalMs,
      immediateMs: json.tasks?.immediateMs ?? TASK_DEFAULTS.immediateMs,
      maxActivePerCaller: json.tasks?.maxActivePerCaller ?? TASK_DEFAULTS.maxActivePerCaller,
      maxResultBytes: json.tasks?.maxResultBytes ?? TASK_DEFAULTS.maxResultBytes,
      leaseMs: json.tasks?.leaseMs ?? TASK_DEFAULTS.leaseMs,
    },
    state: json.state ?? { store: STATE_DEFAULTS.store },
    credentials:
      json.credentials === undefined
        ? undefined
        : {
            keys: json.credentials.keys,
            store: json.credentials.store ?? CREDENTIAL_DEFAULTS.store,
            linkTtlSeconds: json.credentials.linkTtlSeconds ?? CREDENTIAL_DEFAULTS.linkTtlSeconds,
          },
  };
}

/**
 * A `${NAME}` in a program's command line or folder: refused. Arguments are visible to every local user in the
 * process list (`ps`, /proc/<pid>/cmdline), and the host would neither redact nor hide what it read into them, so a
 * variable is read only where the host keeps its value a secret (`env`, `headers`, `url`). A path or a flag that
 * is not a secret is written as it is.
 */
function commandLineVariables(entry: ServerEntry, where: string): string[] {
  const fields: [string, string | undefined][] = [
    ["command", entry.command],
    ...(entry.args ?? []).map((arg, i): [string, string] => [`args[${i}]`, arg]),
    ["cwd", entry.cwd],
  ];
  return fields.flatMap(([field, text]) =>
    [...(text ?? "").matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map(
      ([variable]) =>
        `${where}.${field} uses ${variable}: variables are read only in env, headers and url (a command line is visible to every local user in the process list); pass it in env, or write the value itself if it is not a secret`,
    ),
  );
}

/** What the schema cannot say about `servers`: a program or a URL, each with its own fields; distinct ids. */
function serverProblems(servers: readonly ServerEntry[]): string[] {
  const problems: string[] = [];
  const ids = new Set<string>();
  for (const [index, entry] of servers.entries()) {
    const where = `servers[${index}]`;
    if ((entry.command === undefined) === (entry.url === undefined)) {
      problems.push(`${where}: give exactly one of "command" (a program over stdio) or "url" (a remote server)`);
    }
    if (entry.url !== undefined) {
      for (const field of ["args", "env", "cwd"] as const) {
        if (entry[field] !== undefined) problems.push(`${where}.${field}: only a "command" server takes ${field}`);
      }
    }
    problems.push(...commandLineVariables(entry, where));
    if (entry.command !== undefined && entry.headers !== undefined) {
      problems.push(`${where}.headers: only a "url" server takes headers; give a program its secrets in env`);
    }
    problems.push(...authProblems(entry, where));
    const { include, exclude } = entry.tools ?? {};
    if (include !== undefined && exclude !== undefined) {
      problems.push(`${where}.tools: use "include" or "exclude", not both`);
    }
    if (ids.has(entry.mcp)) problems.push(`${where}.mcp: "${entry.mcp}" is used twice; each server needs its own id`);
    ids.add(entry.mcp);
  }
  return problems;
}

/**
 * A server's `auth` where its kind of server can use it: a program gets each caller's token in a variable of its own
 * process (`"perCaller": "token"` with `env`); a remote server in a header, never in a variable.
 */
function authProblems(entry: ServerEntry, where: string): string[] {
  const { auth } = entry;
  if (auth === undefined) return [];
  if (entry.command !== undefined && (auth.perCaller !== "token" || auth.env === undefined)) {
    return [
      `${where}.auth: a "command" server gets each caller's token in a variable of its process: write { "perCaller": "token", "env": "NAME" }`,
    ];
  }
  if (entry.url !== undefined && auth.perCaller === "token" && auth.env !== undefined) {
    return [`${where}.auth.env: a "url" server gets the caller's token in a header (auth.header), not a variable`];
  }
  return [];
}

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

/** `discovery` with its defaults: the mode alone names the default tools. */
function discoveryOf(discovery: DiscoverySettings = DISCOVERY_DEFAULTS.mode): Discovery {
  const written = typeof discovery === "string" ? { mode: discovery } : discovery;
  return {
    mode: written.mode,
    searchTool: written.searchTool ?? DISCOVERY_DEFAULTS.searchTool,
    callTool: written.callTool ?? DISCOVERY_DEFAULTS.callTool,
    results: written.results ?? DISCOVERY_DEFAULTS.results,
  };
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

import os from "node:os";
import path from "node:path";
import type { JsonSchema } from "@skillport/core";
import type { SkillSurface } from "../entries/surface.js";
import { HostError } from "../errors/host-error.js";
import type { SchemaCompiler } from "../schema/ajv.js";
import { createAjv } from "../schema/ajv.js";
import { describeAjvErrors } from "../schema/format-ajv-errors.js";

/** Options for {@link instanceConfig}. */
export interface InstanceConfigOptions {
  /** The folder that relative `format: "path"` fields resolve against: the manifest's folder when serving. */
  dir: string;
  /**
   * Where the config is written, for messages: each problem names the field under it (`skills[0].config.vault`).
   * @default "config"
   */
  where?: string;
  /** The validator to compile the skill's config schema with; the host shares one across instances. @default a new one */
  ajv?: SchemaCompiler;
}

/** An instance's config as a skill receives it. */
export interface InstanceConfig {
  /** Validated, defaults filled in, `format: "path"` fields resolved to absolute paths. */
  config: unknown;
  /** Every path resolved from a `format: "path"` field, in the order met (what a child process may mount). */
  paths: string[];
}

/**
 * Builds an instance's config exactly as the host does before a skill sees it: validated against the skill's config
 * schema, with the schema's defaults filled in, and every string field marked `format: "path"` resolved against
 * `dir` (`~` is the home folder). The input is not changed. A skill without a config schema takes no config.
 * Throws a HostError (CONFIG_INVALID) that lists every field at fault, each named under `where`.
 *
 * @example
 * instanceConfig(surfaceOf(register()), { vault: "./vault" }, { dir: process.cwd() }).config
 * // { vault: "/home/me/project/vault", scopes: { … defaults … }, … }
 */
export function instanceConfig(
  skill: Pick<SkillSurface, "name" | "configSchema">,
  config: unknown,
  options: InstanceConfigOptions,
): InstanceConfig {
  const where = options.where ?? "config";
  if (skill.configSchema === undefined) {
    if (config !== undefined && (typeof config !== "object" || config === null || Object.keys(config).length > 0)) {
      throw new HostError("CONFIG_INVALID", `[skillport] ${where}: skill "${skill.name}" takes no config; remove it`);
    }
    return { config: {}, paths: [] };
  }
  const copy = structuredClone(config ?? {});
  const compiler: SchemaCompiler = options.ajv ?? createAjv();
  const validate = compiler.compile(skill.configSchema);
  if (!validate(copy)) {
    const problems = describeAjvErrors(validate.errors ?? [], "path", where).map((p) => `${p.where}: ${p.message}`);
    throw new HostError("CONFIG_INVALID", `[skillport] ${where} is invalid for skill "${skill.name}":`, problems);
  }
  const paths: string[] = [];
  return { config: resolvePaths(copy, skill.configSchema, options.dir, paths), paths };
}

// --- internal ---

/**
 * String fields declared `format: "path"` resolve against `base`; `~` is the home folder. Each resolved path is also
 * pushed to `found`.
 */
function resolvePaths(value: unknown, schema: JsonSchema, base: string, found: string[]): unknown {
  if (typeof value === "string" && schema.format === "path") {
    const home = value === "~" || value.startsWith("~/") ? path.join(os.homedir(), value.slice(1)) : value;
    const resolved = path.resolve(base, home);
    found.push(resolved);
    return resolved;
  }
  if (Array.isArray(value) && isSchema(schema.items)) {
    return value.map((item) => resolvePaths(item, schema.items as JsonSchema, base, found));
  }
  if (typeof value === "object" && value !== null && isSchema(schema.properties)) {
    const properties = schema.properties as Record<string, JsonSchema>;
    const record = value as Record<string, unknown>;
    for (const [key, child] of Object.entries(properties)) {
      if (Object.hasOwn(record, key)) record[key] = resolvePaths(record[key], child, base, found);
    }
  }
  return value;
}

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === "object" && value !== null;
}

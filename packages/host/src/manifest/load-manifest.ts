import { readFile } from "node:fs/promises";
import path from "node:path";
import manifestSchema from "../../manifest.schema.json" with { type: "json" };
import { createAjv } from "../ajv.js";
import { SkillportError } from "../errors.js";
import { describeAjvErrors } from "./format-ajv-errors.js";
import type { LoadedManifest, Manifest } from "./manifest.js";

/** The file name `skillport` looks for when no manifest is given. */
export const DEFAULT_MANIFEST = "skills.manifest.json";

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
    throw new SkillportError(
      "MANIFEST_NOT_FOUND",
      code === "ENOENT"
        ? `[skillport] no manifest at ${absolute}; create ${DEFAULT_MANIFEST} there or pass --manifest <path>`
        : `[skillport] cannot read the manifest ${absolute}: ${(error as Error).message}`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new SkillportError(
      "MANIFEST_INVALID",
      `[skillport] ${absolute} is not valid JSON: ${(error as Error).message}`,
    );
  }
  return parseManifest(json, absolute);
}

/** Checks an already-parsed manifest; `file` is where relative paths resolve from. */
export function parseManifest(json: unknown, file: string): LoadedManifest {
  const validate = createAjv().compile<Manifest>(manifestSchema);
  const where = path.basename(file);
  if (!validate(json)) {
    const problems = describeAjvErrors(validate.errors ?? [], "path").map((p) => `${p.where}: ${p.message}`);
    throw new SkillportError("MANIFEST_INVALID", `[skillport] ${where} is invalid (${file}):`, problems);
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
  if (problems.length > 0) {
    throw new SkillportError("MANIFEST_INVALID", `[skillport] ${where} is invalid (${file}):`, problems);
  }
  return {
    file,
    dir: path.dirname(file),
    name: json.name ?? "skillport",
    version: json.version ?? "0.0.0",
    separator: json.separator ?? ".",
    audit: {
      file: json.audit?.file === undefined ? undefined : path.resolve(path.dirname(file), json.audit.file),
      arguments: json.audit?.arguments ?? false,
    },
    confirmation: { secret: json.confirmation?.secret, ttlSeconds: json.confirmation?.ttlSeconds ?? 300 },
    skills: json.skills,
  };
}

import type { CallerSlot } from "../credentials/caller-slot.js";
import type { SkillSurface } from "../entries/surface.js";
import { HostError } from "../errors/host-error.js";
import type { PerCallerCredential, SecretSource, SkillEntry } from "../manifest/manifest.js";
import { readSecret } from "../manifest/read-secret.js";
import { ownValue } from "./own-value.js";

/**
 * Reads each credential the manifest names for this instance. A declared credential the manifest does not
 * name, or whose variable or file is empty, is missing; a missing required one makes the instance's tools
 * answer CREDENTIALS_MISSING while the rest of the server works.
 */
export async function resolveCredentials(
  skill: SkillSurface,
  entry: SkillEntry,
  where: string,
  manifestDir: string,
  problems: HostError[],
  /** The instance's mcp id: its per-caller slots are named `<id>.<credential>`. */
  owner: string,
) {
  const declared = skill.credentials;
  const credentials: Record<string, string | undefined> = {};
  const perCaller: CallerSlot[] = [];
  const missing: string[] = [];
  for (const name of Object.keys(entry.credentials ?? {})) {
    if (!Object.hasOwn(declared, name)) {
      const known = Object.keys(declared);
      problems.push(
        new HostError(
          "CONFIG_INVALID",
          `${where}.credentials.${name}: skill "${skill.name}" declares no credential "${name}"; ${known.length === 0 ? "it needs none, remove it" : `it declares ${known.join(", ")}`}`,
        ),
      );
    }
  }
  for (const [name, spec] of Object.entries(declared)) {
    const source = ownValue(entry.credentials, name);
    if (source === undefined) {
      credentials[name] = undefined;
      if (spec.required) {
        missing.push(
          `credential "${name}" (${spec.description}) is not configured; set ${where}.credentials.${name} to { "env": "NAME" } or { "file": "path" }`,
        );
      }
      continue;
    }
    if ("perCaller" in source) {
      const at = `${where}.credentials.${name}`;
      const slot = await callerSlotOf(skill, owner, name, source, at, manifestDir, problems);
      credentials[name] = slot.fallback;
      perCaller.push(slot);
      continue;
    }
    const reading = await readSecret(source, manifestDir);
    credentials[name] = reading.value;
    if (reading.value === undefined && spec.required) {
      missing.push(`credential "${name}" is missing: set ${reading.where} (${where}.credentials.${name})`);
    }
  }
  return { credentials, missing, perCaller };
}

/** A per-caller skill credential as a slot: its fallback and its OAuth client's secret read now. */
async function callerSlotOf(
  skill: SkillSurface,
  owner: string,
  name: string,
  source: PerCallerCredential,
  where: string,
  manifestDir: string,
  problems: HostError[],
): Promise<CallerSlot> {
  const read = async (secret: SecretSource | undefined, field: string) => {
    if (secret === undefined) return undefined;
    const reading = await readSecret(secret, manifestDir);
    if (reading.value === undefined) {
      problems.push(
        new HostError("CONFIG_INVALID", `${where}.${field}: ${reading.where} is not set; set it, or remove ${field}`),
      );
    }
    return reading.value;
  };
  const fallback = await read(source.fallback, "fallback");
  const id = `${owner}.${name}`;
  const label = source.label ?? `${skill.name}'s ${name}`;
  const oauth = source.oauth;
  if (oauth === undefined) return { id, owner, name, where, label, via: "token", fallback };
  const clientSecret = await read(oauth.clientSecret, "oauth.clientSecret");
  return {
    id,
    owner,
    name,
    where,
    label,
    via: "oauth",
    fallback,
    oauth: {
      serverUrl: oauth.issuer,
      kind: "authorization-server",
      ...(oauth.clientId === undefined ? {} : { clientId: oauth.clientId }),
      ...(clientSecret === undefined ? {} : { clientSecret }),
      ...(oauth.scopes === undefined ? {} : { scopes: oauth.scopes }),
      ...(oauth.resource === undefined ? {} : { resource: oauth.resource }),
    },
  };
}

/** What `check` returns, or undefined when it throws a HostError, which joins `problems`. */
export function attempt<T>(problems: HostError[], check: () => T): T | undefined {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof HostError)) throw error;
    problems.push(error);
    return undefined;
  }
}

/** Every name in the entry's `allow` must be a dangerous tool of the skill. */
export function checkAllow(skill: SkillSurface, entry: SkillEntry, where: string, problems: HostError[]): void {
  const dangerous = skill.tools.filter((t) => t.risk === "dangerous").map((t) => t.name);
  for (const name of entry.allow ?? []) {
    if (!dangerous.includes(name)) {
      problems.push(
        new HostError(
          "CONFIG_INVALID",
          `${where}.allow: "${name}" is not a dangerous tool of skill "${skill.name}"; ${dangerous.length === 0 ? "it has none, remove allow" : `its dangerous tools are ${dangerous.join(", ")}`}`,
        ),
      );
    }
  }
}

/** The entry's version range against the installed version; semver loads only for a manifest that uses one. */
export async function checkVersion(
  entry: SkillEntry,
  where: string,
  packageName: string,
  version: string,
): Promise<void> {
  if (entry.version === undefined) return;
  const { default: semver } = await import("semver");
  if (semver.validRange(entry.version) === null) {
    throw new HostError(
      "MANIFEST_INVALID",
      `[skillport] ${where}.version: "${entry.version}" is not a semver range (e.g. "^0.1.0")`,
    );
  }
  if (!semver.satisfies(version, entry.version, { includePrerelease: true })) {
    throw new HostError(
      "VERSION_MISMATCH",
      `[skillport] ${where}.version: the manifest asks for ${packageName}@${entry.version} but ${version} is installed; install a matching version or change the range`,
    );
  }
}

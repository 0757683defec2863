import type { LoadedManifest } from "@skillport/host";
import { lockCommand, readLock } from "@skillport/host/surface";

/** A per-caller slot as the manifest configures it, read without loading a skill or starting a server. */
export interface ManifestSlot {
  /** `<mcp>.<credential>` (`gh.token`); a server's is `<mcp>.token`. */
  id: string;
  /** The manifest field that makes it per caller: `skills[0].credentials.token`, `servers[1].auth`. */
  where: string;
  owner: "skill" | "server";
  /** How a caller gets one: a personal token, OAuth in the browser, or their own token exchanged (RFC 8693). */
  via: "token" | "oauth" | "exchange";
  /** How it connects, for `skillport check`: where OAuth or the exchange happens, and whether a fallback is set. */
  how: string;
}

/** What {@link manifestSlots} found: the per-caller slots, the host's own credentials, and what cannot be named. */
export interface ManifestSlots {
  slots: ManifestSlot[];
  /** Credentials of the host's own (`<mcp>.<name>` → the field), for an error saying a slot is not per caller. */
  shared: Map<string, string>;
  /** Per-caller credentials whose skill's mcp id cannot be known without loading it. */
  problems: string[];
}

/**
 * The manifest's per-caller slots: every enabled skill's `{ "perCaller": true }` credential and every enabled server's
 * `auth`. A skill's mcp id is its entry's `mcp`, else the name its lock records; neither is a problem (no skill is
 * imported to find it).
 *
 * @example
 * const { slots } = await manifestSlots(await loadManifest("skills.manifest.json"));
 * slots.map((s) => s.id); // ["gh.token", "tickets.token"]
 */
export async function manifestSlots(manifest: LoadedManifest): Promise<ManifestSlots> {
  const slots: ManifestSlot[] = [];
  const shared = new Map<string, string>();
  const problems: string[] = [];
  const lock = await readLock(manifest).catch(() => undefined);
  for (const [index, entry] of manifest.skills.entries()) {
    if (entry.enabled === false) continue;
    const credentials = Object.entries(entry.credentials ?? {});
    const owner = entry.mcp ?? lock?.instances.find((i) => i.entry === index)?.skill.name;
    for (const [name, source] of credentials) {
      const where = `skills[${index}].credentials.${name}`;
      if (!("perCaller" in source)) {
        if (owner !== undefined) shared.set(`${owner}.${name}`, where);
        continue;
      }
      if (owner === undefined) {
        problems.push(
          `${where} is per caller, and its skill's mcp id is not known without loading the skill: set skills[${index}].mcp, or run ${lockCommand(manifest)}`,
        );
        continue;
      }
      const fallback = source.fallback === undefined ? "no fallback" : "a fallback for callers without one";
      slots.push({
        id: `${owner}.${name}`,
        where,
        owner: "skill",
        via: source.oauth === undefined ? "token" : "oauth",
        how:
          source.oauth === undefined
            ? `a personal token each caller stores; ${fallback}`
            : `OAuth at ${source.oauth.issuer}${source.oauth.clientId === undefined ? " (registers itself)" : ` as client ${source.oauth.clientId}`}; ${fallback}`,
      });
    }
  }
  for (const [index, entry] of manifest.servers.entries()) {
    if (entry.enabled === false) continue;
    const id = `${entry.mcp}.token`;
    const where = `servers[${index}].auth`;
    const auth = entry.auth;
    if (auth === undefined) {
      shared.set(id, `servers[${index}]`);
      continue;
    }
    const listWith = auth.listWith === undefined ? "tools from the lock" : "tools listed with listWith";
    const how =
      auth.perCaller === "token"
        ? `a personal token each caller stores, sent in ${auth.env === undefined ? (auth.header ?? "Authorization") : `the variable ${auth.env}`}; ${auth.fallback === undefined ? "no fallback" : "a fallback for callers without one"}`
        : auth.perCaller === "oauth"
          ? `OAuth at the server's own authorization server${auth.clientId === undefined ? " (registers itself)" : ` as client ${auth.clientId}`}`
          : `the caller's JWT exchanged at ${auth.issuer} for audience ${auth.audience}`;
    slots.push({ id, where, owner: "server", via: auth.perCaller, how: `${how}; ${listWith}` });
  }
  return { slots, shared, problems };
}

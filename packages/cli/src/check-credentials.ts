import path from "node:path";
import { HostError, loadManifest } from "@skillport/host";
import { readKeyring } from "@skillport/host/surface";
import type { ManifestSlot } from "./caller-slots.js";
import { manifestSlots } from "./caller-slots.js";
import { formatTable } from "./format-table.js";
import { messageOf } from "./message-of.js";

/** What `skillport check` says of a manifest's per-caller credentials: never a key's or a credential's value. */
export interface CredentialsReport {
  /** Every per-caller slot: its id, the field that makes it per caller, and how a caller connects it. */
  slots: ManifestSlot[];
  /** Each sealing key: where it is read and whether it is there and 32 bytes. */
  keys: { id: string; source: string; ok: boolean; problem?: string }[];
  /** Where records are kept: `file ./.credentials`, `redis (the state's)`, `memory (the state's)`. */
  store: string | undefined;
  findings: { severity: "error" | "warning"; rule: string; where: string; message: string }[];
}

/**
 * Reads the manifest's per-caller slots and sealing keys without starting anything: undefined when the manifest has
 * neither (or cannot be read, which the host's own start reports). A per-caller slot without `credentials`, a key
 * that is not set or not 32 bytes, or a slot whose mcp id cannot be known is an error; records kept in the host's
 * memory a warning.
 *
 * @example
 * const report = await checkCredentials("skills.manifest.json");
 */
export async function checkCredentials(file: string): Promise<CredentialsReport | undefined> {
  let manifest: Awaited<ReturnType<typeof loadManifest>>;
  try {
    manifest = await loadManifest(file);
  } catch {
    return undefined;
  }
  const { slots, problems } = await manifestSlots(manifest);
  const settings = manifest.credentials;
  if (slots.length === 0 && settings === undefined && problems.length === 0) return undefined;
  const findings: CredentialsReport["findings"] = problems.map((message) => ({
    severity: "error",
    rule: "credentials-per-caller",
    where: message.split(" ")[0] ?? "credentials",
    message,
  }));
  if (settings === undefined) {
    for (const slot of slots) {
      findings.push({
        severity: "error",
        rule: "credentials-per-caller",
        where: slot.where,
        message: `is per caller, and ${path.basename(manifest.file)} has no "credentials" to keep callers' credentials in: add "credentials": { "keys": [{ "id": "1", "env": "SKILLPORT_CREDENTIALS_KEY" }], "store": { "file": "./.credentials" } } (a key from openssl rand -base64 32)`,
      });
    }
    return { slots, keys: [], store: undefined, findings };
  }
  const keys: CredentialsReport["keys"] = [];
  for (const [index, key] of settings.keys.entries()) {
    const source = "env" in key ? `env ${key.env}` : `file ${key.file}`;
    try {
      await readKeyring({ ...settings, keys: [key] }, manifest.dir);
      keys.push({ id: key.id, source, ok: true });
    } catch (error) {
      const problem = error instanceof HostError ? error.problems.join("; ") : messageOf(error);
      const message = problem.replace(/^credentials\.keys\[0\] \("[^"]*"\): /, "");
      keys.push({ id: key.id, source, ok: false, problem: message });
      findings.push({ severity: "error", rule: "credentials-key", where: `credentials.keys[${index}]`, message });
    }
  }
  let store: string;
  if (settings.store !== "state") store = `file ${settings.store.file}`;
  else if (manifest.state.store === "redis" || (process.env.SKILLPORT_STATE_URL ?? "").trim() !== "") {
    store = "redis (the state's)";
  } else {
    store = "memory (the state's)";
    if (slots.length > 0) {
      findings.push({
        severity: "warning",
        rule: "credentials-store",
        where: "credentials.store",
        message: `"state" keeps callers' credentials in the host's memory (the state is memory): lost when it exits, and skillport credentials cannot reach them; use { "file": "./.credentials" } or Redis state`,
      });
    }
  }
  if (slots.length === 0) {
    findings.push({
      severity: "warning",
      rule: "credentials-unused",
      where: "credentials",
      message: `no skill credential says { "perCaller": true } and no server has "auth", so nothing is kept per caller; remove "credentials" or make a credential per caller`,
    });
  }
  return { slots, keys, store, findings };
}

/** The report's lines for check's text output: the slots and how they connect, then the keys and the store. */
export function credentialsLines(report: CredentialsReport): string[] {
  const lines: string[] = [];
  if (report.slots.length > 0) {
    lines.push(
      "Per caller:",
      formatTable(
        ["SLOT", "WHERE", "VIA", "HOW"],
        report.slots.map((s) => [s.id, s.where, s.via, s.how]),
      ),
      "",
    );
  }
  if (report.store !== undefined) {
    const keys = report.keys.map((k) => `"${k.id}" (${k.source}) ${k.ok ? "present, 32 bytes" : "NOT usable"}`);
    lines.push(`Credentials kept in ${report.store}, sealed with keys ${keys.join(", ")}`, "");
  }
  return lines;
}

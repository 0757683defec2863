import path from "node:path";
import type { LoadedManifest } from "@skillport/host";
import { loadManifest } from "@skillport/host";
import type { KeptCredentialInfo } from "@skillport/host/surface";
import { readSecret } from "@skillport/host/surface";
import type { ManifestSlot } from "../caller-slots.js";
import { manifestSlots } from "../caller-slots.js";
import { count } from "../count.js";
import { formatTable } from "../format-table.js";
import { messageOf } from "../message-of.js";
import { openVault } from "../open-vault.js";

/** The options `skillport credentials set|list|remove` take. */
export interface CredentialsOptions {
  manifest: string;
  /** The caller's id as the host sees it: `token:<name>` or `jwt:<sub>`. */
  caller?: string;
  /** set: read the value from this environment variable. */
  fromEnv?: string;
  /** set: read the value from this file (trimmed). */
  fromFile?: string;
  /** list: only this slot's records. */
  slot?: string;
  json?: boolean;
}

/**
 * `skillport credentials set <slot> --caller <id>`: seals a caller's personal token for a `token` slot into the
 * manifest's store. The value is read from stdin (not echoed on a terminal), an environment variable or a file, never
 * from the command line, where the process list would show it. Exit 0 when saved, 1 otherwise.
 */
export async function credentialsSet(slotId: string, options: CredentialsOptions): Promise<number> {
  const manifest = await loadManifest(options.manifest);
  const slot = await slotOf(manifest, slotId);
  const caller = callerOf(options.caller);
  if (typeof slot === "string") return fail(slot);
  if (caller.error !== undefined) return fail(caller.error);
  if (slot.via !== "token") {
    return fail(
      `${slot.id} is connected ${slot.via === "oauth" ? "through OAuth in the caller's browser" : "with the caller's own JWT, exchanged at the identity provider"} (${slot.where}), so there is no token to store: only a "token" slot takes one. Callers connect it on the host's connections page.`,
    );
  }
  // The keys and the store first: nobody types a token for a store that cannot take it.
  const opened = await openVault(manifest);
  try {
    let value: string;
    try {
      value = await readValue(options, `${caller.id}'s token for ${slot.id}`);
    } catch (error) {
      return fail(messageOf(error));
    }
    if (value === "") return fail(`the token read ${sourceOf(options)} is empty; nothing was saved`);
    await opened.vault.put(slot.id, caller.id, { kind: "token", value, savedAt: Date.now() });
  } finally {
    await opened.close();
  }
  process.stdout.write(
    `✔ saved ${caller.id}'s token for ${slot.id} in ${opened.where}, sealed with key "${opened.vault.keyring.currentId}"\n`,
  );
  return 0;
}

/** `skillport credentials list`: every kept record's slot, caller, kind, state and times, never a value. */
export async function credentialsList(options: CredentialsOptions): Promise<number> {
  const manifest = await loadManifest(options.manifest);
  if (options.slot !== undefined) {
    const slot = await slotOf(manifest, options.slot, { anyVia: true });
    if (typeof slot === "string") return fail(slot);
  }
  const opened = await openVault(manifest);
  let infos: KeptCredentialInfo[];
  try {
    infos = await opened.vault.list(options.slot);
  } finally {
    await opened.close();
  }
  const now = Date.now();
  const rows = infos.map((info) => ({
    slot: info.slot,
    caller: info.caller,
    kind: info.readable ? info.kind : "?",
    state: !info.readable
      ? "unreadable"
      : info.expiresAt !== undefined && info.expiresAt <= now
        ? "expired"
        : "connected",
    savedAt: info.readable ? new Date(info.savedAt).toISOString() : undefined,
    expiresAt: info.expiresAt === undefined ? undefined : new Date(info.expiresAt).toISOString(),
  }));
  if (options.json) {
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return 0;
  }
  const table = formatTable(
    ["SLOT", "CALLER", "KIND", "STATE", "SAVED", "EXPIRES"],
    rows.map((r) => [r.slot, r.caller, r.kind, r.state, r.savedAt ?? "-", r.expiresAt ?? "-"]),
  );
  const unreadable = rows.filter((r) => r.state === "unreadable").length;
  process.stdout.write(
    `${table}\n\n${count(rows.length, "credential")} in ${opened.where}${unreadable === 0 ? "" : `; ${unreadable} unreadable: sealed by a key no longer in credentials.keys (add it back, second, to open them) or altered`}\n`,
  );
  return 0;
}

/** `skillport credentials remove <slot> --caller <id>`: forgets what a caller connected for a slot. */
export async function credentialsRemove(slotId: string, options: CredentialsOptions): Promise<number> {
  const manifest = await loadManifest(options.manifest);
  const slot = await slotOf(manifest, slotId, { anyVia: true });
  const caller = callerOf(options.caller);
  if (typeof slot === "string") return fail(slot);
  if (caller.error !== undefined) return fail(caller.error);
  const opened = await openVault(manifest);
  let removed: boolean;
  try {
    removed = await opened.vault.remove(slot.id, caller.id);
  } finally {
    await opened.close();
  }
  if (!removed) {
    return fail(
      `${opened.where} keeps no credential of ${caller.id} for ${slot.id}; skillport credentials list --slot ${slot.id} shows whose it keeps`,
    );
  }
  process.stdout.write(`✔ removed ${caller.id}'s credential for ${slot.id} from ${opened.where}\n`);
  return 0;
}

// --- internal ---

function fail(message: string): number {
  process.stderr.write(`[skillport] ${message}\n`);
  return 1;
}

/** The manifest's slot of that id, or why it is not one this command can use. */
async function slotOf(
  manifest: LoadedManifest,
  id: string,
  options: { anyVia?: boolean } = {},
): Promise<ManifestSlot | string> {
  const { slots, shared, problems } = await manifestSlots(manifest);
  const found = slots.find((s) => s.id === id);
  if (found !== undefined) return found;
  const name = path.basename(manifest.file);
  const shown = options.anyVia ? slots : slots.filter((s) => s.via === "token");
  const known =
    shown.length === 0
      ? `${name} has no per-caller ${options.anyVia ? "" : "token "}slot`
      : `its ${options.anyVia ? "" : "token "}slots: ${shown.map((s) => s.id).join(", ")}`;
  const owned = shared.get(id);
  if (owned !== undefined) {
    return `${id} is the host's own credential (${owned}), the same for every caller, not per caller: change it where ${owned} reads it, or make it per caller ({ "perCaller": true } for a skill, "auth" for a server); ${known}`;
  }
  const unknown = problems.length === 0 ? "" : `; also: ${problems.join("; ")}`;
  return `${name} has no slot "${id}" (a slot is <mcp>.<credential>, e.g. gh.token; a server's is <mcp>.token); ${known}${unknown}`;
}

/** A caller id as the host sees it, or why it is not one. */
function callerOf(caller: string | undefined): { id: string; error?: undefined } | { id?: undefined; error: string } {
  if (caller === undefined) return { error: "--caller is required: the caller's id, token:<name> or jwt:<sub>" };
  if (/^(token|jwt):\S+$/.test(caller)) return { id: caller };
  return {
    error: `--caller takes the caller's id as the host sees it, got "${caller}": token:<name> for a static token of http.auth.tokens (e.g. token:${caller.replace(/^.*:/, "") || "alice"}), jwt:<sub> for a JWT's subject; a bare name could be either, so it is not guessed`,
  };
}

function sourceOf(options: CredentialsOptions): string {
  if (options.fromEnv !== undefined) return `from the variable ${options.fromEnv}`;
  if (options.fromFile !== undefined) return `from ${options.fromFile}`;
  return "from stdin";
}

/** The value from the named variable or file, else stdin (asked for without echo on a terminal). */
async function readValue(options: CredentialsOptions, what: string): Promise<string> {
  if (options.fromEnv !== undefined && options.fromFile !== undefined) {
    throw new Error("give --from-env or --from-file, not both (or neither, to read stdin)");
  }
  const source =
    options.fromEnv !== undefined
      ? { env: options.fromEnv }
      : options.fromFile !== undefined
        ? { file: options.fromFile }
        : undefined;
  if (source !== undefined) {
    // As the host reads a manifest's secrets: trimmed, a file relative to here.
    const reading = await readSecret(source, process.cwd());
    if (reading.value !== undefined) return reading.value;
    if (reading.missing === "empty") return "";
    const flag = "env" in source ? "--from-env" : "--from-file";
    throw new Error(
      `${flag}: ${reading.where} is ${reading.missing === "unreadable" ? `unreadable (${reading.code})` : "not set"}`,
    );
  }
  if (process.stdin.isTTY) return readHidden(`${what} (not shown as you type): `);
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8").trim();
}

/** One line typed on the terminal, not echoed. Ctrl-C cancels. */
function readHidden(prompt: string): Promise<string> {
  const stdin = process.stdin;
  // No echo before the prompt shows: whoever types on seeing it is not echoed.
  stdin.setRawMode(true);
  process.stderr.write(prompt);
  stdin.setEncoding("utf8");
  stdin.resume();
  return new Promise((resolve, reject) => {
    let value = "";
    const done = () => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off("data", onData);
      process.stderr.write("\n");
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === "\r" || char === "\n" || char === "\u0004") {
          done();
          resolve(value.trim());
          return;
        }
        if (char === "\u0003") {
          done();
          reject(new Error("cancelled; nothing was saved"));
          return;
        }
        value = char === "\u007f" || char === "\b" ? value.slice(0, -1) : value + char;
      }
    };
    stdin.on("data", onData);
  });
}

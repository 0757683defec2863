import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import type { RegisteredSkill } from "@skillport/core";
import { sandboxAvailable } from "@skillport/core/sandbox";
import type { Host } from "@skillport/host";
import { createHost } from "@skillport/host";
import type { LockFile } from "@skillport/host/surface";
import { compileSchema, hashOf, listedTools, lockCommand, lockPathOf, readLock } from "@skillport/host/surface";
import type { SurfaceChange } from "@skillport/tooling";
import { classifyServerChanges, classifySkillChanges, lintSkill, lintSkillDoc } from "@skillport/tooling";
import semver from "semver";
import type { CredentialsReport } from "../check-credentials.js";
import { checkCredentials, credentialsLines } from "../check-credentials.js";
import { count } from "../count.js";
import { formatTable } from "../format-table.js";
import { messageOf } from "../message-of.js";
import { providerNamesNote, separatorFixes } from "../provider-names.js";
import { quietLogger } from "../quiet-logger.js";
import { upstreamClient } from "../upstream-client.js";
import { upstreamPatternReports } from "../upstream-patterns.js";

export interface CheckOptions {
  manifest: string;
  compat?: string;
  json?: boolean;
}

/** One thing `check` found: an error fails the check, a warning does not. */
export interface Finding {
  severity: "error" | "warning";
  rule: string;
  where: string;
  message: string;
}

/** Tool-name rules of the clients `--compat` knows. */
export const COMPAT: Readonly<Record<string, { pattern: RegExp; rule: string }>> = {
  anthropic: { pattern: /^[A-Za-z0-9_-]{1,64}$/, rule: "letters, digits, _ and -, at most 64 (no dots)" },
  openai: { pattern: /^[A-Za-z0-9_-]{1,64}$/, rule: "letters, digits, _ and -, at most 64 (no dots)" },
  strict: {
    pattern: /^[A-Za-z_][A-Za-z0-9_]{0,63}$/,
    rule: "a letter or _ first, then letters, digits and _, at most 64",
  },
};

/**
 * `skillport check`: validates the manifest and loads every enabled skill (a conflict or an invalid config stops
 * it there), then reports what would fail or mislead at run time: skills that do not load, missing credentials,
 * tool names a chosen client rejects or that collide once sanitised, spec-lint findings (write and dangerous tools
 * without a brief, inputs without descriptions or bounds), what each skill's own `diagnose` says about its instance's
 * config (the shell skill: running without its sandbox), resources and prompts refused over HTTP for want of a
 * `"resources:*"` or `"prompts:*"` scope key, the size of tools/list, and every change of the tool surface since the
 * manifest's lock with its level (an upstream server's tool whose risk is below its lock's is an error). Exit 0 when
 * clean, 1 on any error.
 */
export async function check(options: CheckOptions): Promise<number> {
  const compat = options.compat === undefined ? undefined : COMPAT[options.compat];
  if (options.compat !== undefined && compat === undefined) {
    process.stderr.write(
      `[skillport] --compat must be one of ${Object.keys(COMPAT).join(", ")}, got "${options.compat}"\n`,
    );
    return 2;
  }
  // Read before the host starts: a per-caller slot without credentials, or a key that is not set, stops the host.
  const credentials = await checkCredentials(options.manifest);
  let host: Host;
  try {
    host = await createHost({ manifest: options.manifest, client: upstreamClient, logger: quietLogger(), lock: "off" });
  } catch (error) {
    if (credentials === undefined || !credentials.findings.some((f) => f.severity === "error")) throw error;
    printCredentials(credentials, options.json === true, error);
    return 1;
  }
  try {
    const findings: Finding[] = [...(credentials?.findings ?? [])];
    const add = (severity: Finding["severity"], rule: string, where: string, message: string) =>
      findings.push({ severity, rule, where, message });

    for (const f of host.registry.failures) add("error", "skill-loads", f.source, f.message);
    for (const instance of host.registry.instances) {
      for (const message of instance.missingCredentials) add("error", "credentials", instance.source, message);
      // With the lock off every skill is imported already: load() answers at once.
      const skill = await instance.load();
      for (const finding of lintSkill(skill)) {
        const where = `${instance.source}, tool ${finding.tool}${finding.field === undefined ? "" : ` ${finding.field}`}`;
        add(finding.severity === "error" ? "error" : "warning", finding.rule, where, finding.message);
      }
      await diagnose(instance, skill, add);
      await checkSkillDoc(host, instance, skill, add);
    }
    // Resources or prompts refused over HTTP because the instance scopes its tools one by one and not them.
    for (const gap of host.registry.scopeGaps) add("warning", "scopes-closed", gap.source, gap.message);
    checkServers(host, add);
    if (compat !== undefined) checkNames(host, options.compat as string, compat, add);
    const sizes = await sizeOf(host);
    const changes = await checkLock(host, add);

    const ok = !findings.some((f) => f.severity === "error");
    // Not a finding: "." is a valid MCP name, but say plainly which clients need another separator.
    const note = providerNamesNote(
      [...host.registry.tools.keys()],
      host.manifest.separator,
      path.basename(host.manifest.file),
    );
    const notes = note === undefined ? [] : [note];
    if (options.json) {
      process.stdout.write(
        `${JSON.stringify({ ok, manifest: host.manifest.file, findings, sizes, changes, notes, credentials: credentials === undefined ? undefined : { slots: credentials.slots, keys: credentials.keys, store: credentials.store } }, null, 2)}\n`,
      );
    } else {
      if (credentials !== undefined) process.stdout.write(`${credentialsLines(credentials).join("\n")}\n`);
      process.stdout.write(report(host, findings, sizes, changes, ok));
      for (const line of notes) process.stdout.write(`\n${line}\n`);
    }
    return ok ? 0 : 1;
  } finally {
    await host.close();
  }
}

// --- internal ---

/** The credentials' findings when the host cannot start for them, with the host's own message on stderr. */
function printCredentials(credentials: CredentialsReport, json: boolean, error: unknown): void {
  const { slots, keys, store, findings } = credentials;
  if (json) {
    process.stdout.write(`${JSON.stringify({ ok: false, findings, credentials: { slots, keys, store } }, null, 2)}\n`);
  } else {
    const table = formatTable(
      ["", "RULE", "WHERE", "PROBLEM"],
      findings.map((f) => [f.severity === "error" ? "✖" : "!", f.rule, f.where, f.message]),
    );
    process.stdout.write(`${[...credentialsLines(credentials), table].join("\n")}\n`);
  }
  process.stderr.write(`${messageOf(error)}\n`);
}

type Add = (severity: Finding["severity"], rule: string, where: string, message: string) => void;

/**
 * What the skill itself says about this instance's config (`defineSkill({ diagnose })`): sandbox missing, etc.; and
 * whether `isolation: "process"` gets the sandbox it promises here.
 */
/** The instance's SKILL.md, when it serves one, against the rules testSkill() applies: frontmatter, tool names. */
async function checkSkillDoc(
  host: Host,
  instance: Host["registry"]["instances"][number],
  skill: RegisteredSkill,
  add: Add,
): Promise<void> {
  const doc = host.registry.skillDocs.find((d) => d.instance === instance);
  if (doc === undefined) return;
  const file = path.join(doc.dir, "SKILL.md");
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    add("error", "skill-md-frontmatter", `${instance.source}, SKILL.md`, `cannot read ${file}: ${messageOf(error)}`);
    return;
  }
  for (const finding of lintSkillDoc(text, skill)) {
    add(finding.severity, finding.rule, `${instance.source}, SKILL.md`, finding.message);
  }
}

async function diagnose(
  instance: Host["registry"]["instances"][number],
  skill: RegisteredSkill,
  add: Add,
): Promise<void> {
  if (instance.isolation === "process") {
    const sandbox = await sandboxAvailable();
    if (!sandbox.available) {
      add(
        "warning",
        "isolation-sandbox",
        instance.source,
        `isolation "process" runs without its sandbox on this machine (${sandbox.reason}): the child has an empty environment, but it can read the host's files and /proc/<pid>/environ (every credential the host read from its environment) and use the network`,
      );
    }
  }
  if (skill.diagnose === undefined) return;
  try {
    for (const d of await skill.diagnose(instance.config)) {
      add(d.severity, d.rule ?? "diagnose", instance.source, d.message);
    }
  } catch (error) {
    add("error", "diagnose", instance.source, `the skill's diagnose failed: ${messageOf(error)}`);
  }
}

/**
 * The upstream servers, started and listed (check runs without the lock): a variable not set, an input schema that
 * does not compile (a call to that tool could never be validated), a destructive tool left out of `allow`, and the
 * patterns of the tools' input and output schemas (one RE2 cannot run is an error; a super-linear one a warning).
 */
function checkServers(host: Host, add: Add): void {
  for (const server of host.registry.servers) {
    for (const message of server.missingCredentials) add("error", "credentials", server.source, message);
    for (const entry of host.registry.tools.values()) {
      if (entry.instance !== server) continue;
      const where = `${server.source}, tool ${entry.toolName}`;
      const { $schema: _dialect, ...schema } = entry.listing.inputSchema;
      try {
        compileSchema(schema);
      } catch (error) {
        add(
          "error",
          "upstream-schema",
          where,
          `its input schema does not compile (${messageOf(error)}), so every call to it would fail; exclude it in tools.exclude or fix the server`,
        );
      }
      if (entry.risk === "dangerous" && !server.allow.has(entry.toolName)) {
        add(
          "warning",
          "upstream-destructive",
          where,
          `its annotations say destructiveHint, so it is refused unless listed in ${server.where}.allow (then it runs after its user confirms)`,
        );
      }
    }
  }
  for (const report of upstreamPatternReports(host))
    add(report.severity, "upstream-pattern", report.where, report.message);
}

function checkNames(host: Host, client: string, compat: { pattern: RegExp; rule: string }, add: Add): void {
  const sanitised = new Map<string, string>();
  for (const entry of host.registry.tools.values()) {
    if (!compat.pattern.test(entry.fullName)) {
      const fix = separatorFixes([entry.fullName], host.manifest.separator, compat.pattern)
        ? 'set "separator": "_" in the manifest'
        : "rename the tool in tools.rename";
      add("error", "compat-name", entry.fullName, `${client} rejects this name (${compat.rule}); ${fix}`);
    }
    const safe = entry.fullName.replace(/[^A-Za-z0-9_]/g, "_").slice(0, 64);
    const other = sanitised.get(safe);
    if (other !== undefined) {
      add(
        "error",
        "compat-collision",
        entry.fullName,
        `becomes "${safe}" once sanitised, as does "${other}"; rename one`,
      );
    } else sanitised.set(safe, entry.fullName);
  }
}

/** The tokenizer tools/list is counted with: OpenAI's o200k_base (GPT-4o and later), through gpt-tokenizer. */
const TOKENIZER = "o200k_base";

/**
 * The tokens of tools/list (its JSON, as a client receives it, counted with {@link TOKENIZER}): per instance, in
 * total, and as the manifest would answer it with discovery "all" and with "search", so an operator sees what the
 * search saves.
 */
async function sizeOf(host: Host) {
  // Loaded here only: the tokenizer's tables are large, and no other command needs them.
  const { countTokens } = await import("gpt-tokenizer/encoding/o200k_base");
  const tokensOf = (listings: readonly object[]) => countTokens(JSON.stringify({ tools: listings }));
  const entries = [...host.registry.tools.values()];
  const perInstance = [...host.registry.instances, ...host.registry.servers].map((source) => {
    const listings = entries.filter((t) => t.instance === source).map((t) => t.listing);
    return { mcp: source.id, tools: listings.length, tokens: tokensOf(listings) };
  });
  const { discovery } = host.manifest;
  const modes = (["all", "search"] as const).map((mode) => {
    const listed = listedTools(host.registry, { ...discovery, mode });
    return { mode, tools: listed.length, tokens: tokensOf(listed), served: mode === discovery.mode };
  });
  const all = modes[0] as (typeof modes)[number];
  return { tokenizer: TOKENIZER, perInstance, total: all.tokens, discovery: modes };
}

/** Classifies changes since the lock; a breaking one without a breaking version bump (or changeset) is an error. */
async function checkLock(host: Host, add: Add) {
  const lock: LockFile | undefined = await readLock(host.manifest);
  if (lock === undefined) return [];
  const lockName = path.basename(lockPathOf(host.manifest));
  const majors = await pendingMajors(host.manifest.dir);
  const all: Array<SurfaceChange & { instance: string }> = [];
  for (const instance of host.registry.instances) {
    const locked = lock.instances.find((i) => i.entry === instance.index && i.package === instance.packageName);
    if (locked === undefined) {
      add("warning", "lock", instance.source, `is not in ${lockName}; run ${lockCommand(host.manifest)}`);
      continue;
    }
    const changes = classifySkillChanges(locked.skill, instance.surface);
    all.push(...changes.map((c) => ({ ...c, instance: instance.source })));
    const breaking = changes.filter((c) => c.level === "breaking");
    if (breaking.length === 0) continue;
    // A bump outside the locked version's caret range may break callers (1.x → 2.0.0, 0.1.x → 0.2.0).
    const bumped = !semver.satisfies(instance.version, `^${locked.version}`) || majors.has(instance.packageName);
    if (!bumped) {
      for (const change of breaking) {
        add(
          "error",
          "breaking-change",
          `${instance.source}, ${/^(resource|template|prompt) /.test(change.tool) ? "" : "tool "}${change.tool}`,
          `${change.message}: a breaking change, but ${instance.packageName} ${locked.version} → ${instance.version} is not a major bump; bump it (pnpm changeset, major) or undo the change`,
        );
      }
    }
  }
  const serverChanges: typeof all = [];
  for (const server of host.registry.servers) {
    const locked = lock.servers?.find((s) => s.entry === server.index && s.mcp === server.id);
    if (locked === undefined) {
      add("warning", "lock", server.source, `is not in ${lockName}; run ${lockCommand(host.manifest)}`);
      continue;
    }
    const changes = Array.isArray(locked.tools) ? classifyServerChanges(locked.tools, server.tools) : [];
    serverChanges.push(...changes.map((c) => ({ ...c, instance: server.source })));
    // A server must not lower what its operator reviewed: a host started from the lock refuses the tool.
    for (const change of changes.filter((c) => c.lowersRisk === true)) {
      add(
        "error",
        "upstream-risk",
        `${server.source}, tool ${change.tool}`,
        `${change.message} since ${lockName}: the server now claims the tool is safer than what was reviewed, and a host started from the lock answers UNAVAILABLE for it; find out why before you run ${lockCommand(host.manifest)}`,
      );
    }
    if (locked.hash !== hashOf(server.tools)) {
      add(
        "warning",
        "lock",
        server.source,
        `its tools changed since ${lockName} (calls answer UNAVAILABLE for a changed tool until it is relocked); review them and run ${lockCommand(host.manifest)}`,
      );
    }
  }
  if (all.length > 0 && !all.some((c) => c.level === "breaking")) {
    add(
      "warning",
      "lock",
      lockName,
      `the tool surface changed since the lock; run ${lockCommand(host.manifest)} to record it`,
    );
  }
  return [...all, ...serverChanges];
}

/** Packages a pending changeset bumps by a major version. */
async function pendingMajors(from: string): Promise<Set<string>> {
  const majors = new Set<string>();
  for (let dir = from; ; dir = path.dirname(dir)) {
    const folder = path.join(dir, ".changeset");
    const files = await readdir(folder).catch(() => undefined);
    if (files !== undefined) {
      for (const file of files.filter((f) => f.endsWith(".md") && f !== "README.md")) {
        const text = await readFile(path.join(folder, file), "utf8");
        const header = /^---\n([\s\S]*?)\n---/.exec(text)?.[1] ?? "";
        for (const match of header.matchAll(/^\s*["']?([^"':\s]+)["']?\s*:\s*major\s*$/gm))
          majors.add(match[1] as string);
      }
      return majors;
    }
    if (path.dirname(dir) === dir) return majors;
  }
}

function report(
  host: Host,
  findings: Finding[],
  sizes: Awaited<ReturnType<typeof sizeOf>>,
  changes: Array<SurfaceChange & { instance: string }>,
  ok: boolean,
): string {
  const lines: string[] = [];
  if (findings.length > 0) {
    lines.push(
      formatTable(
        ["", "RULE", "WHERE", "PROBLEM"],
        findings.map((f) => [f.severity === "error" ? "✖" : "!", f.rule, f.where, f.message]),
      ),
      "",
    );
  }
  if (changes.length > 0) {
    lines.push(`Changes since ${path.basename(lockPathOf(host.manifest))}:`);
    lines.push(
      formatTable(
        ["LEVEL", "TOOL", "CHANGE"],
        changes.map((c) => [c.level, c.tool, c.message]),
      ),
      "",
    );
  }
  lines.push(
    formatTable(
      ["MCP", "TOOLS", "TOKENS"],
      [
        ...sizes.perInstance.map((s) => [s.mcp, String(s.tools), String(s.tokens)]),
        ["total", String(host.registry.tools.size), String(sizes.total)],
      ],
    ),
    "",
  );
  const [all, search] = sizes.discovery;
  if (all !== undefined && search !== undefined) {
    const share = all.tokens === 0 ? 0 : Math.round((search.tokens / all.tokens) * 100);
    const mark = (mode: { served: boolean }) => (mode.served ? ", this manifest's" : "");
    lines.push(
      `tools/list in ${sizes.tokenizer} tokens: ${all.tokens} with discovery "all" (${count(all.tools, "tool")}${mark(all)}), ${search.tokens} with "search" (${count(search.tools, "tool")}, ${share}%${mark(search)})`,
      "",
    );
  }
  const errors = findings.filter((f) => f.severity === "error").length;
  const warnings = findings.length - errors;
  lines.push(
    `${ok ? "✔" : "✖"} ${host.manifest.file}: ${count(host.registry.instances.length, "skill instance")}${host.registry.servers.length === 0 ? "" : `, ${count(host.registry.servers.length, "upstream server")}`}, ${count(host.registry.tools.size, "tool")}, no conflicts; ${count(errors, "error")}, ${count(warnings, "warning")}`,
  );
  return `${lines.join("\n")}\n`;
}

import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { insertSkillEntry } from "../insert-skill-entry.js";
import { messageOf } from "../message-of.js";
import type { SkillTemplateInput } from "../templates/skill.js";
import { skillChangeset, skillFiles, toolName } from "../templates/skill.js";

/** Options of `skillport new`. */
export interface NewOptions {
  /** The manifest the new skill is added to, disabled; the skill goes into `skills/` beside it. */
  manifest: string;
  /** The npm scope of the new package. @default "@skillport" */
  scope: string;
  /** This CLI's version: outside a workspace, the new package depends on `^<version>` of @skillport packages. */
  version: string;
}

/** 2–31 characters: a lowercase letter, then lowercase letters, digits and single dashes. */
const NAME = /^[a-z][a-z0-9-]{1,30}$/;

/**
 * `skillport new <capability>`: scaffolds `skills/skill-<capability>` (one example tool, its capability, a test
 * with testSkill and mockContext, README, LICENSE, a changeset) and adds it to the manifest, disabled. Refuses an
 * invalid name (exit 2) and a skill that already exists (exit 1).
 */
export async function newSkill(capability: string, options: NewOptions): Promise<number> {
  if (!NAME.test(capability) || capability.endsWith("-") || capability.includes("--")) {
    return refuse(
      2,
      `"${capability}" is not a valid skill name: use 2-31 lowercase letters, digits and single "-", starting with a letter (e.g. weather, git-history)`,
    );
  }
  const scope = options.scope.replace(/\/$/, "");
  if (!/^@[a-z0-9][a-z0-9._~-]*$/.test(scope)) {
    return refuse(2, `"${options.scope}" is not an npm scope: write it as @name (e.g. @acme)`);
  }
  const manifestFile = path.resolve(options.manifest);
  let manifestText: string;
  try {
    manifestText = await readFile(manifestFile, "utf8");
  } catch {
    return refuse(
      1,
      `no manifest at ${manifestFile}; run skillport new at the root of your Skillport workspace (where skills.manifest.json is) or pass --manifest <path>`,
    );
  }
  let skills: unknown;
  let separator: unknown;
  try {
    ({ skills, separator } = (JSON.parse(manifestText) as { skills?: unknown; separator?: unknown } | null) ?? {});
  } catch (error) {
    return refuse(1, `${manifestFile} is not valid JSON (${messageOf(error)}); fix it first`);
  }
  const entry = { path: `./skills/skill-${capability}`, mcp: capability, enabled: false };
  // The entry goes in as text: the rest of the manifest keeps its bytes (formatting, key order, line endings).
  const updated = Array.isArray(skills) ? insertSkillEntry(manifestText, entry) : undefined;
  if (!Array.isArray(skills) || updated === undefined) {
    return refuse(1, `${manifestFile} has no "skills" list; run skillport check to see what is wrong`);
  }

  const root = path.dirname(manifestFile);
  const folder = `skills/skill-${capability}`;
  const target = path.join(root, folder);
  const packageName = `${scope}/skill-${capability}`;
  if (existsSync(target)) {
    return refuse(1, `${folder} already exists; choose another name, or remove the folder to start again`);
  }
  const taken = (skills as { path?: string; mcp?: string; package?: string }[]).findIndex(
    (s) => s.mcp === capability || s.package === packageName || path.resolve(root, s.path ?? "\0") === target,
  );
  if (taken !== -1) {
    return refuse(1, `the manifest already has "${capability}" (skills[${taken}]); choose another name`);
  }

  const input: SkillTemplateInput = {
    name: capability,
    packageName,
    workspace: {
      dependencies: existsSync(path.join(root, "pnpm-workspace.yaml")),
      tsconfigBase: existsSync(path.join(root, "tsconfig.base.json")),
      vitestShared: existsSync(path.join(root, "vitest.shared.ts")),
    },
    skillportRange: `^${options.version}`,
    year: new Date().getFullYear(),
  };
  const written: string[] = [];
  for (const [relative, content] of Object.entries(skillFiles(input))) {
    const file = path.join(target, relative);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content, { flag: "wx" });
    written.push(`${folder}/${relative}`);
  }
  if (existsSync(path.join(root, ".changeset"))) {
    const file = path.join(root, ".changeset", `skill-${capability}-first-release.md`);
    await writeFile(file, skillChangeset(input), { flag: "wx" });
    written.push(`.changeset/${path.basename(file)}`);
  }
  await writeFile(manifestFile, updated);

  const filter = `pnpm --filter ${packageName}`;
  const manifestName = path.basename(manifestFile);
  const relative = path.relative(process.cwd(), manifestFile);
  const flag = relative === "skills.manifest.json" ? "" : ` --manifest ${relative}`;
  process.stdout.write(`Created ${packageName} in ${folder}:
${written.map((w) => `  ${w}`).join("\n")}
and added it to ${manifestName} as "${capability}", disabled.

Next:
  pnpm install
  ${filter} build && ${filter} test     # testSkill() and the unit test, with a mocked token
Then implement src/, set "enabled": true on "${capability}" in ${manifestName} and try it:
  pnpm exec skillport lock${flag} && pnpm exec skillport list${flag}
  pnpm exec skillport call${flag} ${capability}${typeof separator === "string" ? separator : "."}${toolName(capability)} '{"query":"an example query"}'
`);
  return 0;
}

// --- internal ---

function refuse(code: number, message: string): number {
  process.stderr.write(`[skillport] new: ${message}\n`);
  return code;
}

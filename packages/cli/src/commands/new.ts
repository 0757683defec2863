import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { messageOf } from "@skillport/host/tooling";
import type { SkillTemplateInput } from "../templates/skill.js";
import { skillChangeset, skillFiles } from "../templates/skill.js";

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
  let manifest: { skills?: { path?: string; mcp?: string; package?: string }[] };
  try {
    manifest = JSON.parse(manifestText) as typeof manifest;
  } catch (error) {
    return refuse(1, `${manifestFile} is not valid JSON (${messageOf(error)}); fix it first`);
  }
  if (!Array.isArray(manifest.skills)) {
    return refuse(1, `${manifestFile} has no "skills" list; run skillport check to see what is wrong`);
  }

  const root = path.dirname(manifestFile);
  const folder = `skills/skill-${capability}`;
  const target = path.join(root, folder);
  const packageName = `${scope}/skill-${capability}`;
  if (existsSync(target)) {
    return refuse(1, `${folder} already exists; choose another name, or remove the folder to start again`);
  }
  const taken = manifest.skills.findIndex(
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
  manifest.skills.push({ path: `./${folder}`, mcp: capability, enabled: false } as (typeof manifest.skills)[number]);
  await writeFile(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);

  const filter = `pnpm --filter ${packageName}`;
  process.stdout.write(`Created ${packageName} in ${folder}:
${written.map((w) => `  ${w}`).join("\n")}
and added it to ${path.basename(manifestFile)} as "${capability}", disabled.

Next:
  pnpm install
  ${filter} build && ${filter} test     # testSkill() and the unit test, with a mocked token
  then implement src/, set "enabled": true in ${path.basename(manifestFile)} and try it: pnpm exec skillport list
`);
  return 0;
}

// --- internal ---

function refuse(code: number, message: string): number {
  process.stderr.write(`[skillport] new: ${message}\n`);
  return code;
}

// The MCP Skills extension (SEP-2640, io.modelcontextprotocol/skills) over the whole composition: every instance's
// SKILL.md, with the files beside it, as one catalog. The SDK's own SkillsExtension attaches to an McpServer; this
// host serves a low-level Server, so it answers the methods itself and builds each entry with the SDK's skillEntry
// (frontmatter, digests, sizes, the extension's rules).
import type { Resource } from "@modelcontextprotocol/server";
import type { DirectoryResource, Skill } from "@modelcontextprotocol/server/ext/skills";
import type { Logger } from "../logging/logger.js";
import type { SkillDoc } from "../registry/skill-docs.js";
import { readSkillFiles, SKILL_FILE } from "../registry/skill-docs.js";

/** One file of the catalog, as resources/read serves it. */
type SkillFile = { text: string; mimeType: string } | { bytes: Uint8Array; mimeType: string };

/** The catalog of a composition's skills. */
export interface SkillsCatalog {
  /** Every skill entry, by SKILL.md URI order. */
  entries(): Promise<readonly Skill[]>;
  get(uri: string): Promise<Skill | undefined>;
  /** A file of a served skill, or undefined when no skill serves that URI. */
  read(uri: string): Promise<SkillFile | undefined>;
  /**
   * The direct children of a skill's folder (`skill://…/<name>`) or of a folder in it, in URI order: files with
   * their MIME type and size, folders as `inode/directory`. Undefined when the URI is no such folder.
   */
  readDirectory(uri: string): Promise<readonly DirectoryResource[] | undefined>;
  /** The SKILL.md files, for resources/list: named and described by their frontmatter. */
  listResources(): Promise<Resource[]>;
}

// The extension's names, as the SDK's ext/skills module exports them (a test checks they agree). Named here so that
// serving loads that module (about 5-10 ms of start-up: the SDK's whole SkillsExtension) only when a client first
// asks for skills.
export const SKILLS_EXTENSION_ID = "io.modelcontextprotocol/skills";
export const SKILLS_LIST_METHOD = "skills/list";
export const SKILLS_GET_METHOD = "skills/get";
export const RESOURCES_DIRECTORY_READ_METHOD = "resources/directory/read";
export const DIRECTORY_MIME_TYPE = "inode/directory";

/** The most entries one skills/list page holds. */
export const SKILLS_PAGE_SIZE = 100;

/**
 * The catalog of the registry's SKILL.md documents, built on first use (files read, hashed) and kept: what a
 * client lists is what it reads. A skill whose files do not make a valid entry (the frontmatter's name is not its
 * folder's, a description is missing) is left out and logged; the others are served.
 */
export function createSkillsCatalog(docs: readonly SkillDoc[], logger: Logger): SkillsCatalog {
  let built: Promise<Map<string, { skill: Skill; files: Map<string, Uint8Array> }>> | undefined;
  let folders: Promise<Map<string, DirectoryResource[]>> | undefined;
  const build = () => {
    built ??= (async () => {
      const { skillEntry } = await import("@modelcontextprotocol/server/ext/skills");
      const catalog = new Map<string, { skill: Skill; files: Map<string, Uint8Array> }>();
      for (const doc of docs) {
        try {
          const files = await readSkillFiles(doc.dir);
          const skillPath = `${doc.base.slice("skill://".length)}${doc.name}`;
          const skill = await skillEntry(skillPath, files);
          const root = skill.uri.slice(0, -SKILL_FILE.length);
          catalog.set(skill.uri, {
            skill,
            files: new Map(Object.entries(files).map(([path, bytes]) => [`${root}${encodePath(path)}`, bytes])),
          });
        } catch (error) {
          logger.warn(
            { instance: doc.instance.id, err: error },
            `${doc.uri} is not served: its files make no valid skill`,
          );
        }
      }
      return new Map([...catalog.entries()].sort(([a], [b]) => a.localeCompare(b)));
    })();
    return built;
  };
  return {
    async entries() {
      return [...(await build()).values()].map((e) => e.skill);
    },
    async get(uri) {
      return (await build()).get(uri)?.skill;
    },
    async readDirectory(uri) {
      folders ??= build().then(foldersOf);
      return (await folders).get(uri.endsWith("/") ? uri.slice(0, -1) : uri);
    },
    async read(uri) {
      for (const { files } of (await build()).values()) {
        const bytes = files.get(uri);
        if (bytes === undefined) continue;
        const mimeType = mimeTypeOf(uri);
        const text = utf8(bytes);
        return text === undefined ? { bytes, mimeType } : { text, mimeType };
      }
      return undefined;
    },
    async listResources() {
      return [...(await build()).values()].map(({ skill }) => {
        const { name, description } = skill.frontmatter as { name?: unknown; description?: unknown };
        return {
          uri: skill.uri,
          name: typeof name === "string" ? name : skill.uri,
          ...(typeof description === "string" ? { description } : {}),
          mimeType: "text/markdown",
        };
      });
    },
  };
}

// --- internal ---

/** Every folder of every skill (its root, and the folders its files sit in) → its direct children, in URI order. */
function foldersOf(catalog: Map<string, { skill: Skill; files: Map<string, Uint8Array> }>) {
  const folders = new Map<string, Map<string, DirectoryResource>>();
  const folder = (uri: string) => {
    let children = folders.get(uri);
    if (children === undefined) {
      children = new Map();
      folders.set(uri, children);
    }
    return children;
  };
  for (const { skill, files } of catalog.values()) {
    const root = skill.uri.slice(0, -`/${SKILL_FILE}`.length);
    folder(root);
    for (const [uri, bytes] of files) {
      const segments = uri.slice(root.length + 1).split("/");
      let parent = root;
      for (const [index, segment] of segments.entries()) {
        const child = `${parent}/${segment}`;
        const name = decodeURIComponent(segment);
        if (index === segments.length - 1) {
          folder(parent).set(child, { uri: child, name, mimeType: mimeTypeOf(child), size: bytes.byteLength });
        } else {
          folder(parent).set(child, { uri: child, name, mimeType: DIRECTORY_MIME_TYPE });
          folder(child);
        }
        parent = child;
      }
    }
  }
  return new Map(
    [...folders].map(([uri, children]) => [uri, [...children.values()].sort((a, b) => (a.uri < b.uri ? -1 : 1))]),
  );
}

const MIME: Record<string, string> = {
  md: "text/markdown",
  markdown: "text/markdown",
  txt: "text/plain",
  json: "application/json",
  yaml: "application/yaml",
  yml: "application/yaml",
  py: "text/x-python",
  sh: "application/x-sh",
  js: "text/javascript",
  ts: "text/plain",
  html: "text/html",
  css: "text/css",
  csv: "text/csv",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  svg: "image/svg+xml",
  pdf: "application/pdf",
};

function mimeTypeOf(uri: string): string {
  const extension = /\.([A-Za-z0-9]+)$/.exec(uri)?.[1]?.toLowerCase();
  return (extension === undefined ? undefined : MIME[extension]) ?? "application/octet-stream";
}

function encodePath(relative: string): string {
  return relative
    .split("/")
    .map((segment) => encodeURIComponent(segment))
    .join("/");
}

function utf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

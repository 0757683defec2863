// The manifest schema's building blocks, shared by its sections (skill-entry-schema.ts, server-entry-schema.ts,
// http-settings-schema.ts, manifest-schema.ts): names, patterns, lists without duplicates, secret sources, scopes.
import { z } from "zod";

/**
 * Names every JavaScript object already answers to: code reading a map from the manifest would confuse a key named
 * like one of them with the object's own property.
 */
export const OBJECT_NAMES = [
  "__proto__",
  "constructor",
  "prototype",
  "hasOwnProperty",
  "isPrototypeOf",
  "propertyIsEnumerable",
  "toLocaleString",
  "toString",
  "valueOf",
  "__defineGetter__",
  "__defineSetter__",
  "__lookupGetter__",
  "__lookupSetter__",
] as const;

// --- building blocks ---

/** A string matching a pattern, published as written (a RegExp's `source` would escape every "/"). */
export const matching = (pattern: string) => z.string().regex(new RegExp(pattern, "u")).meta({ pattern });

/** An array without duplicates: checked here, published as `uniqueItems`. */
export const unique = <T extends z.ZodType>(items: T) =>
  z
    .array(items)
    .refine((list) => new Set(list.map((item) => JSON.stringify(item))).size === list.length, "items must be unique")
    .meta({ uniqueItems: true });

export const SafeName = z
  .string()
  .refine((name) => !(OBJECT_NAMES as readonly string[]).includes(name), "is not allowed as a name")
  .meta({
    id: "safeName",
    description:
      "A name used as a key in the manifest: anything but the names every JavaScript object already carries, which code reading the map would confuse with them.",
    not: { enum: OBJECT_NAMES },
  });

export const SecretSourceSchema = z
  .xor([
    z.strictObject({
      env: matching("^[A-Za-z_][A-Za-z0-9_]*$").meta({
        description: "The environment variable holding it.",
        examples: ["GITHUB_TOKEN"],
      }),
    }),
    z.strictObject({
      file: z
        .string()
        .min(1)
        .meta({ description: "A file holding it, relative to the manifest.", examples: ["./secrets/github-token"] }),
    }),
  ])
  .meta({ id: "secretSource", description: "Where a secret comes from: an environment variable or a file (trimmed)." });

const Scope = matching("^[\\x21\\x23-\\x5B\\x5D-\\x7E]{1,128}$").meta({
  id: "scope",
  description: "An OAuth scope token (RFC 6749 §3.3): printable ASCII without spaces, quotes or backslashes.",
  examples: ["notes:read", "notes:write"],
});

export const ScopeList = unique(Scope).max(64).meta({ id: "scopeList" });

/** `alwaysLoad` for a tool ("this tool", "it") or for every tool of an instance ("this instance's tools", "them"). */
export const alwaysLoad = (subject: string, pronoun: string) =>
  z
    .boolean()
    .describe(
      `With \`discovery\` "search": list ${subject} in tools/list beside the search and call tools, so clients see ${pronoun} without searching. With "all": mark ${pronoun} with \`_meta["anthropic/alwaysLoad"]\`, which asks a client with a tool search of its own (Claude Code) to load ${pronoun} up front.`,
    );

export const ToolOverride = z.strictObject({
  title: z.string().min(1).max(200).optional(),
  description: z.string().min(1).max(4000).optional(),
  alwaysLoad: alwaysLoad("this tool", "it").optional(),
  searchHint: z
    .string()
    .min(1)
    .max(200)
    .meta({
      description:
        'Words a search should find this tool by, beyond its name and description (what users call the task). With `discovery` "search" they weigh like the tool\'s name in search_tools; with "all" they are sent as `_meta["anthropic/searchHint"]`, which a client with a tool search of its own (Claude Code) matches.',
      examples: ["remove erase trash file"],
    })
    .optional(),
  annotations: z
    .strictObject({ idempotentHint: z.boolean().optional(), openWorldHint: z.boolean().optional() })
    .meta({ description: "readOnlyHint and destructiveHint follow the tool's risk and cannot be overridden." })
    .optional(),
});

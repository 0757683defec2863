import { register } from "node:module";

/**
 * Lets a rebuilt skill be imported anew, although Node's ESM loader keeps every module it imported for the life of
 * the process, keyed by URL. `skillport dev` imports a rebuilt skill's entry at `<url>?skillport-dev=<n>` (see
 * {@link freshUrl}), a URL Node has not seen; the resolve hook registered here passes the same query on to every
 * file the skill reaches by a relative import (`./search-notes.js`), so its own files load anew with it, while what
 * it imports by name (`@skillport/core`, its dependencies) stays the one copy already loaded.
 *
 * Registered once per process; later calls do nothing.
 */
export function registerFreshImports(): void {
  if (registered) return;
  registered = true;
  register(`data:text/javascript,${encodeURIComponent(HOOK)}`);
}

/** The URL a skill's entry is imported from at its `version`th build: the entry's own before the first. */
export function freshUrl(entryUrl: string, version: number | undefined): string {
  if (version === undefined) return entryUrl;
  const url = new URL(entryUrl);
  url.searchParams.set(QUERY, String(version));
  return url.href;
}

/** A message without the query {@link freshUrl} adds: what a person reads names the file as it is on disk. */
export function withoutFreshQuery(text: string): string {
  return text.replaceAll(new RegExp(`\\?${QUERY}=\\d+`, "g"), "");
}

// --- internal ---

const QUERY = "skillport-dev";

let registered = false;

/** The resolve hook, as the module text Node loads it from (a data: URL: nothing to ship beside the bundle). */
const HOOK = `
const QUERY = ${JSON.stringify(QUERY)};
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  const parent = context.parentURL;
  if (parent === undefined || !parent.startsWith("file:") || !resolved.url.startsWith("file:")) return resolved;
  if (!specifier.startsWith("./") && !specifier.startsWith("../")) return resolved;
  const version = new URL(parent).searchParams.get(QUERY);
  if (version === null) return resolved;
  const url = new URL(resolved.url);
  if (url.searchParams.has(QUERY)) return resolved;
  url.searchParams.set(QUERY, version);
  return { ...resolved, url: url.href };
}
`;

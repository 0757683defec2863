/**
 * How a source's own URIs become the URIs clients see, and back: each skill instance serves its URIs under its
 * mcp id (`github://user/starred` → `github://gh/user/starred`), or as they are when mounted without a prefix.
 */
export interface UriMount {
  /** The URI a client sees for one in the source's own scheme; other URIs are returned unchanged. */
  served(uri: string): string;
}

/** A compiled URI template: `{name}` is one path segment, `{+name}` any text up to a query or fragment. */
export interface UriTemplate {
  readonly template: string;
  readonly variables: readonly string[];
  /** The variables of a URI the template matches (percent-decoded), or undefined. */
  match(uri: string): Record<string, string> | undefined;
  /** The URI for these variables, each percent-encoded (`{+name}` keeps its slashes). */
  expand(params: Readonly<Record<string, string>>): string;
}

/**
 * Compiles a URI template of the form skills declare (`github://repos/{owner}/{repo}/readme`, `notes://{+path}`).
 * Matching is one anchored regular expression with no nested quantifiers, linear in the URI's length.
 */
export function compileUriTemplate(template: string): UriTemplate {
  const variables: string[] = [];
  const parts: Part[] = [];
  let pattern = "^";
  let last = 0;
  for (const match of template.matchAll(VARIABLE)) {
    const literal = template.slice(last, match.index);
    pattern += escapeRegExp(literal);
    parts.push({ literal });
    const reserved = match[1] === "+";
    const variable = match[2] as string;
    variables.push(variable);
    parts.push({ variable, reserved });
    pattern += reserved ? "([^?#]+)" : "([^/?#]+)";
    last = (match.index ?? 0) + match[0].length;
  }
  const tail = template.slice(last);
  pattern += `${escapeRegExp(tail)}$`;
  parts.push({ literal: tail });
  const regex = new RegExp(pattern);
  return {
    template,
    variables,
    match(uri) {
      if (uri.length > MAX_URI) return undefined;
      const found = regex.exec(uri);
      if (found === null) return undefined;
      const params: Record<string, string> = {};
      for (const [index, variable] of variables.entries()) {
        try {
          params[variable] = decodeURIComponent(found[index + 1] as string);
        } catch {
          return undefined; // a malformed escape names no resource
        }
      }
      return params;
    },
    expand(params) {
      return parts
        .map((part) => {
          if ("literal" in part) return part.literal;
          const value = encodeURIComponent(params[part.variable] ?? "");
          return part.reserved ? value.replaceAll("%2F", "/") : value;
        })
        .join("");
    },
  };
}

/**
 * The mount of a skill instance's URIs: under its id (`scheme://<id>/rest`), or as they are when `id` is undefined
 * (an instance mounted without a prefix). Only URIs in `schemes`, the schemes the skill's own resources use, move.
 */
function uriMount(id: string | undefined, schemes: ReadonlySet<string>): UriMount {
  return {
    served(uri) {
      if (id === undefined) return uri;
      const at = uri.indexOf("://");
      if (at <= 0 || !schemes.has(uri.slice(0, at))) return uri;
      return `${uri.slice(0, at)}://${id}/${uri.slice(at + 3)}`;
    },
  };
}

/** The mount of an instance's URIs, from the schemes of its resources and templates. */
export function instanceMount(
  id: string,
  prefixed: boolean,
  surface: { resources?: { uri: string }[]; resourceTemplates?: { uriTemplate: string }[] },
): UriMount {
  const uris = [
    ...(surface.resources ?? []).map((r) => r.uri),
    ...(surface.resourceTemplates ?? []).map((t) => t.uriTemplate),
  ];
  return uriMount(prefixed ? id : undefined, new Set(uris.map((uri) => uri.slice(0, Math.max(0, uri.indexOf("://"))))));
}

/** The longest URI a template is matched against. */
const MAX_URI = 8192;

// --- internal ---

type Part = { literal: string } | { variable: string; reserved: boolean };

const VARIABLE = /\{(\+?)([A-Za-z_][A-Za-z0-9_]{0,63})\}/g;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

import { cannotStart } from "../errors/host-error.js";
import { parseJsonc } from "../json/parse-jsonc.js";

/**
 * A manifest's text as the host reads it: JSON with comments and trailing commas (the way `tsconfig.json` and
 * `biome.json` are read), so an example pasted with its `//` notes loads as it is. A syntax error stops the host
 * with its line, its column, and the line itself with a caret under the place.
 *
 * @example
 * parseManifestText('{ "skills": [], // none yet\n}', "skills.manifest.json"); // { skills: [] }
 */
export function parseManifestText(text: string, file: string): unknown {
  const read = parseJsonc(text);
  if ("value" in read) return read.value;
  const { line, column, message, excerpt } = read.error;
  throw cannotStart("MANIFEST_INVALID", file, [
    `line ${line}, column ${column}: ${message}; a manifest is JSON, with comments and trailing commas allowed\n${excerpt.join("\n")}`,
  ]);
}

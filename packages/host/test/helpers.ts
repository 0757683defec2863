import path from "node:path";
import { fileURLToPath } from "node:url";
import { createLogger } from "../src/log.js";
import { parseManifest } from "../src/manifest/load-manifest.js";

export const FIXTURES = fileURLToPath(new URL("./fixtures/", import.meta.url));
export const ECHO = path.join(FIXTURES, "skill-echo");
export const BROKEN_IMPORT = path.join(FIXTURES, "skill-broken-import");
export const NOTES = fileURLToPath(new URL("../../../skills/skill-notes/", import.meta.url));

/** A manifest as if written in the fixtures folder. */
export function manifestOf(json: unknown) {
  return parseManifest(json, path.join(FIXTURES, "skills.manifest.json"));
}

export const silentLogger = () => createLogger({ level: "silent" });

import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

/**
 * The one JSON Schema (draft 2020-12) validator setup the host uses for manifests, configs and call arguments:
 * defaults filled in, every error reported with the value and schema at fault (for messages), formats checked ("date" is a real calendar date).
 * Unknown keywords are tolerated (skills may publish annotations); `format: "path"` marks a path.
 */
export function createAjv(options: { trustedSchemas?: boolean } = {}): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: true,
    verbose: true,
    useDefaults: true,
    strict: false,
    coerceTypes: false,
    // Our own schemas (the manifest's) are tested; checking them against the meta-schema costs start-up time.
    validateSchema: options.trustedSchemas !== true,
  });
  addFormats.default(ajv);
  ajv.addFormat("path", true);
  return ajv;
}

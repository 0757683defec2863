import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

/** Options for {@link createAjv}. */
export interface AjvOptions {
  /** Our own, tested schemas: skip checking them against the meta-schema (start-up time). @default false */
  trustedSchemas?: boolean;
  /**
   * Stop at the first error instead of collecting all of them. Call arguments come from clients: with every
   * error collected, a string that already failed `maxLength` would still run `pattern`, so one request could
   * make a costly pattern scan a megabyte. Ajv checks a string's lengths before its pattern, so the first error
   * stops it there. Manifests and configs (written by the operator) keep every error, for better messages.
   * @default false
   */
  firstError?: boolean;
  /**
   * Fill in the schema's defaults while validating. Off for checking what a tool returns: a check must not change
   * the answer.
   * @default true
   */
  fillDefaults?: boolean;
}

/**
 * The one JSON Schema (draft 2020-12) validator setup the host uses for manifests, configs and call arguments:
 * defaults filled in, errors reported with the value and schema at fault (for messages), formats checked ("date" is a real calendar date).
 * Unknown keywords are tolerated (skills may publish annotations); `format: "path"` marks a path.
 */
export function createAjv(options: AjvOptions = {}): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: options.firstError !== true,
    verbose: true,
    useDefaults: options.fillDefaults !== false,
    strict: false,
    coerceTypes: false,
    // Our own schemas (the manifest's) are tested; checking them against the meta-schema costs start-up time.
    validateSchema: options.trustedSchemas !== true,
  });
  addFormats.default(ajv);
  ajv.addFormat("path", true);
  return ajv;
}

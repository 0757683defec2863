import type { ValidateFunction } from "ajv";
import type { Ajv2020 } from "ajv/dist/2020.js";
import type addFormatsPlugin from "ajv-formats";
import { fromSources, requireFromHost } from "../package/package-files.js";

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
  /**
   * Schemas the host did not write (an upstream server's): every pattern is compiled by `regExp`, which runs it in
   * linear time (RE2), and no schema's `$id` is remembered, so one server's schema can neither clash with nor be
   * referenced by another's. A pattern `regExp` cannot compile makes the schema fail to compile.
   * @default undefined (the host's and the skills' own schemas: patterns are JavaScript RegExps; skills' are checked by recheck)
   */
  foreign?: { regExp: PatternEngine };
}

/** Compiles a pattern (ECMA-262, the `u` flag) into a search; throws when it cannot. `linearRegExp` of `@skillport/client`. */
export type PatternEngine = (pattern: string, flags: string) => { test(text: string): boolean };

/** What the host needs of a validator setup: compile a schema into a check. ajv's own instances are one. */
export interface SchemaCompiler {
  compile<T = unknown>(schema: object): ValidateFunction<T>;
}

/**
 * The one JSON Schema (draft 2020-12) validator setup the host uses for manifests, configs and call arguments:
 * defaults filled in, errors reported with the value and schema at fault (for messages), formats checked ("date" is a real calendar date).
 * Unknown keywords are tolerated (skills may publish annotations); `format: "path"` marks a path.
 * ajv is loaded by this call, not when this module is imported.
 */
export function createAjv(options: AjvOptions = {}): Ajv2020 {
  const { Ajv2020: Ajv, addFormats } = loadAjv();
  const allErrors = options.firstError !== true;
  // Our own schemas (the manifest's) are tested; checking them against the meta-schema costs start-up time.
  const schemaCheck = options.trustedSchemas === true ? undefined : prebuiltSchemaCheck(allErrors);
  const ajv = new Ajv({
    allErrors,
    verbose: true,
    useDefaults: options.fillDefaults !== false,
    strict: false,
    coerceTypes: false,
    validateSchema: options.trustedSchemas !== true && schemaCheck === undefined,
    ...(options.foreign === undefined
      ? {}
      : { addUsedSchema: false, code: { regExp: engineOf(options.foreign.regExp) } }),
  });
  addFormats(ajv);
  if (options.foreign !== undefined) boundUrlFormat(ajv, addFormats);
  ajv.addFormat("path", true);
  if (schemaCheck !== undefined) checkSchemasWith(ajv, schemaCheck);
  return ajv;
}

/**
 * {@link createAjv}'s setup, made on the first `compile`: ajv (a large module, about a fifth of a bare start-up)
 * is neither loaded nor set up until some schema is compiled. The host's validators compile each tool's schema on
 * its first call, so a server that only lists its tools never loads ajv at all.
 */
export function lazyAjv(options: AjvOptions = {}): SchemaCompiler {
  let ajv: Ajv2020 | undefined;
  return {
    compile<T>(schema: object): ValidateFunction<T> {
      ajv ??= createAjv(options);
      return ajv.compile<T>(schema);
    },
  };
}

// --- internal ---

interface AjvLibrary {
  Ajv2020: typeof Ajv2020;
  addFormats: typeof addFormatsPlugin.default;
}

/**
 * ajv and ajv-formats are CommonJS: required synchronously, when a validator is first set up. A built host requires
 * them bundled in one file (dist/ajv.cjs, by scripts/generate-validators.mjs): from their ~80 files they cost about
 * 60-100 ms of CPU at a server's first call.
 */
function loadAjv(): AjvLibrary {
  if (!fromSources) return requireFromHost("./dist/ajv.cjs") as AjvLibrary;
  const { Ajv2020 } = requireFromHost("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js");
  const formats = requireFromHost("ajv-formats") as typeof addFormatsPlugin;
  return { Ajv2020, addFormats: formats.default };
}

/** The longest string ajv-formats' `url` format is tested on in a foreign schema. */
const MAX_URL_FORMAT = 8_000;

/**
 * ajv-formats' `url` format is a regular expression that takes quadratic time (about 2 s on 176,000 characters): in a
 * schema the host did not write, whose string may have no maxLength, it is tested on at most 8,000 characters (a few
 * milliseconds); a longer string is not a url.
 */
function boundUrlFormat(ajv: Ajv2020, addFormats: AjvLibrary["addFormats"]): void {
  const url = addFormats.get("url") as RegExp;
  ajv.addFormat("url", (text: string) => text.length <= MAX_URL_FORMAT && url.test(text));
}

/**
 * A pattern engine as ajv takes one: ajv tells compiled patterns apart by their `toString()`, so each gets its own
 * whatever the engine answers (two patterns reading "[object Object]" would share one check); `code` names it in
 * standalone code, which the host never generates.
 */
function engineOf(regExp: PatternEngine) {
  const compile = (pattern: string, flags: string) => {
    const compiled = regExp(pattern, flags);
    const text = `/${pattern}/${flags}`;
    return { test: (input: string) => compiled.test(input), toString: () => text };
  };
  return Object.assign(compile, { code: "foreignRegExp" });
}

const DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema";

/**
 * The build's compiled copy of ajv's check of a schema against the draft 2020-12 meta-schema, reporting every error
 * or only the first as the instance would (undefined run from the sources: ajv checks as it always does). ajv
 * compiles the meta-schema in each instance on its first schema (about 70 ms; a first call meets several instances).
 */
function prebuiltSchemaCheck(allErrors: boolean): ValidateFunction | undefined {
  if (fromSources) return undefined;
  return requireFromHost(
    allErrors ? "./dist/schema-validator.cjs" : "./dist/schema-validator-first-error.cjs",
  ) as ValidateFunction;
}

/**
 * Checks every schema `ajv` compiles with `check` first, failing as ajv itself does (`schema is invalid: …`, its
 * errors in ajv's words). A schema that names another meta-schema is left to ajv.
 */
function checkSchemasWith(ajv: Ajv2020, check: ValidateFunction): void {
  const compile = ajv.compile.bind(ajv);
  ajv.compile = ((schema: object, meta?: boolean) => {
    const declared = (schema as { $schema?: unknown }).$schema;
    if (declared === undefined || declared === DRAFT_2020_12 || declared === `${DRAFT_2020_12}#`) {
      if (!check(schema)) throw new Error(`schema is invalid: ${ajv.errorsText(check.errors)}`);
    } else ajv.validateSchema(schema, true);
    return compile(schema, meta);
  }) as typeof ajv.compile;
}

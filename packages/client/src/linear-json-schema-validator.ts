import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from "@modelcontextprotocol/client";
import type { Options } from "ajv";
import { Ajv } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { linearRegExp } from "./linear-reg-exp.js";

/**
 * The SDK client's JSON Schema validator (its `jsonSchemaValidator` option, which checks a tool's
 * `structuredContent` against the `outputSchema` the server published) on ajv with every pattern run by RE2
 * ({@link linearRegExp}): a server's schema cannot make the check backtrack. It reads dialects as the SDK's own
 * validator does (no `$schema` or 2020-12, 2019-09, draft-07 and draft-06; any other is refused), with formats checked.
 * A schema whose pattern RE2 cannot run does not compile (the SDK refuses calls to that tool, naming the pattern);
 * a string longer than 100,000 characters checked against a pattern fails the check. No schema's `$id` is
 * remembered, so one tool's schema can neither clash with nor be referenced by another's. Engines are made on first
 * use. Every handle of `@skillport/client` uses it (this module is imported on a handle's first connection).
 *
 * @example
 * const client = new Client(info, { jsonSchemaValidator: linearJsonSchemaValidator() });
 */
export function linearJsonSchemaValidator(): jsonSchemaValidator {
  const engines = new Map<string, Ajv>();
  const engineFor = (schema: JsonSchemaType): Ajv => {
    const dialect = dialectOf(schema);
    let engine = engines.get(dialect);
    if (engine === undefined) {
      const Engine = dialect === "2020-12" ? Ajv2020 : dialect === "2019-09" ? Ajv2019 : Ajv;
      engine = new Engine(OPTIONS);
      addFormats(engine);
      // ajv-formats' url format takes quadratic time (about 2 s on 176,000 characters): tested on 8,000 at most.
      const url = addFormats.get("url") as RegExp;
      engine.addFormat("url", (text: string) => text.length <= MAX_URL_FORMAT && url.test(text));
      engines.set(dialect, engine);
    }
    return engine;
  };
  return {
    getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
      const engine = engineFor(schema);
      const validate = engine.compile(schema);
      return (input) => {
        let valid: boolean;
        try {
          valid = validate(input) as boolean;
        } catch (error) {
          // A string too long for a pattern: the check fails, saying why.
          if (!(error instanceof RangeError)) throw error;
          return { valid: false, data: undefined, errorMessage: error.message };
        }
        return valid
          ? { valid: true, data: input as T, errorMessage: undefined }
          : { valid: false, data: undefined, errorMessage: engine.errorsText(validate.errors) };
      };
    },
  };
}

// --- internal ---

const OPTIONS: Options = {
  strict: false,
  validateSchema: false,
  validateFormats: true,
  // The first error is enough to refuse an answer, and stops before a string's pattern once its length fails.
  allErrors: false,
  addUsedSchema: false,
  // `code` names the engine in standalone code, which is never generated here.
  code: {
    regExp: Object.assign((pattern: string, flags: string) => linearRegExp(pattern, flags), { code: "linearRegExp" }),
  },
};

/** ajv-formats is CommonJS: its plugin is the default export, or that export's own `default`. */
const addFormats = ((addFormatsModule as { default?: unknown }).default ?? addFormatsModule) as ((ajv: Ajv) => Ajv) & {
  get(format: string): unknown;
};

/** The longest string the `url` format is tested on. */
const MAX_URL_FORMAT = 8_000;

/** The schema's dialect as the SDK's validator reads `$schema`. */
function dialectOf(schema: JsonSchemaType): "2020-12" | "2019-09" | "draft-07" {
  const declared = (schema as { $schema?: unknown }).$schema;
  if (typeof declared !== "string") return "2020-12";
  const uri = declared.replace(/#$/, "").replace(/^http:/, "https:");
  if (uri === "https://json-schema.org/draft/2020-12/schema") return "2020-12";
  if (uri === "https://json-schema.org/draft/2019-09/schema") return "2019-09";
  if (uri === "https://json-schema.org/draft-07/schema" || uri === "https://json-schema.org/draft-06/schema") {
    return "draft-07";
  }
  throw new Error(
    `[skillport-client] the schema declares an unsupported dialect (${JSON.stringify(declared.slice(0, 200))}); 2020-12, 2019-09, draft-07 and draft-06 are read`,
  );
}

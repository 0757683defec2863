// Generated tools/call requests for the tools core's parity tests (any name, any arguments, any `_meta`, any valid
// id, written as a client's text, an own `__proto__` key included), with what the core's contract calls plain
// restated from its documentation (src/mcp/plain-request.ts), not its code.
import fc from "fast-check";

/** The echo fixture's tools that answer at once without asking the client anything, and one that does not exist. */
const NAMES = [
  "echo.echo",
  "echo.plain",
  "echo.nothing",
  "echo.fail",
  "echo.boom",
  "echo.find",
  "echo.whoami",
  "echo.config",
  "echo.nope",
];

const text = fc.string({ unit: "binary", maxLength: 12 });
export const anyJson = fc.jsonValue({ maxDepth: 3, stringUnit: "binary" });
/** Arguments near the echo tool's schema (so some pass validation), near the find tool's, and anything JSON carries. */
const echoArguments = fc.record(
  {
    text: fc.oneof(text, fc.integer(), fc.constant(null)),
    times: fc.oneof(fc.integer({ min: -1, max: 4 }), fc.double(), text),
    extra: anyJson,
  },
  { requiredKeys: [] },
);
const argumentsArb = fc.oneof(
  { weight: 3, arbitrary: echoArguments },
  fc.record({ query: fc.oneof(text, fc.integer()), keyword: text }, { requiredKeys: [] }),
  fc.dictionary(text, anyJson, { maxKeys: 4 }),
  anyJson,
);
const progressTokenArb = fc.oneof(
  text,
  fc.integer(),
  fc.double(),
  fc.maxSafeInteger(),
  fc.constant(2 ** 53),
  fc.constant(null),
  fc.dictionary(text, anyJson, { maxKeys: 2 }),
);
const plainMetaArb = fc.record({ progressToken: fc.oneof(text, fc.maxSafeInteger()) }, { requiredKeys: [] });
/** `_meta` as an object (a `_meta` that is not one is refused by the SDK either way, and covered by fast-path.test). */
const metaArb = fc.record({ progressToken: progressTokenArb, other: anyJson }, { requiredKeys: [] });
export const requestArb = fc.record(
  {
    id: fc.oneof(fc.maxSafeInteger(), fc.integer(), text),
    name: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...NAMES) }, text, anyJson),
    arguments: fc.option(argumentsArb, { nil: undefined }),
    /** An own `__proto__` key written into the arguments' JSON, as a client's text can carry one; now and then. */
    protoKey: fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, anyJson),
    meta: fc.oneof(fc.constant(undefined), plainMetaArb, metaArb),
  },
  { requiredKeys: ["id", "name"] },
);
export type GeneratedRequest = typeof requestArb extends fc.Arbitrary<infer T> ? T : never;

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** What the core's contract calls plain (mcp/plain-request.ts), restated from its documentation, not its code. */
export function isPlain(request: GeneratedRequest): boolean {
  const args = argumentsOf(request);
  // An own "__proto__" key: written in by the test, or generated (fast-check's keys include it now and then).
  const argsPlain =
    args === undefined || (isObject(args) && request.protoKey === undefined && !Object.hasOwn(args, "__proto__"));
  const meta = request.meta;
  const token = meta?.progressToken;
  const metaPlain =
    meta === undefined ||
    (Object.keys(meta).every((key) => key === "progressToken") &&
      (token === undefined || typeof token === "string" || Number.isSafeInteger(token)));
  return typeof request.name === "string" && argsPlain && metaPlain;
}

/** The arguments as sent: with an own `__proto__` key, only into an object (it is in the text either way). */
const argumentsOf = (request: GeneratedRequest) =>
  request.protoKey !== undefined && !isObject(request.arguments) ? {} : request.arguments;

/** The request's JSON text, built by hand so an own `__proto__` key survives into it. */
export function textOf(id: unknown, request: GeneratedRequest, extraMeta?: object): string {
  const parts = [`"name":${JSON.stringify(request.name)}`];
  const args = argumentsOf(request);
  if (args !== undefined) {
    let json = JSON.stringify(args);
    if (request.protoKey !== undefined) {
      const rest = json.slice(1);
      json = `{"__proto__":${JSON.stringify(request.protoKey)}${rest === "}" ? "" : ","}${rest}`;
    }
    parts.push(`"arguments":${json}`);
  }
  const meta = extraMeta === undefined ? request.meta : { ...request.meta, ...extraMeta };
  if (meta !== undefined) parts.push(`"_meta":${JSON.stringify(meta)}`);
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"tools/call","params":{${parts.join(",")}}}`;
}

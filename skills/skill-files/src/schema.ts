import { SkillError } from "@skillport/core";
import { z } from "zod";
import { MAX_WRITE_BYTES_LIMIT } from "./config.js";

/** The longest path a call may pass. */
const MAX_PATH_LENGTH = 4096;

/** A path argument; every tool resolves it the same way (see resolvePath). */
export function pathField(description: string, examples: string[]) {
  return z
    .string()
    .min(1)
    .max(MAX_PATH_LENGTH)
    .describe(
      `${description}. Relative to the first root, or absolute inside a root; ".." and links leading outside are refused`,
    )
    .meta({ examples });
}

const ENCODINGS = ["utf-8", "base64"] as const;
export type Encoding = (typeof ENCODINGS)[number];

export const encodingField = (what: string) =>
  z
    .enum(ENCODINGS)
    .default("utf-8")
    .describe(`How ${what}: "utf-8" for text, "base64" for exact bytes (binary files)`)
    .meta({ examples: ["utf-8", "base64"] });

/** Base64 content can be at most this long: the write ceiling, encoded. */
const MAX_BASE64_LENGTH = Math.ceil(MAX_WRITE_BYTES_LIMIT / 3) * 4;

/**
 * Characters allowed in base64 content. The schema checks the alphabet only: a stricter pattern (groups of four)
 * overflows the regular expression engine's stack on multi-megabyte strings. The capability checks the rest.
 */
const BASE64_PATTERN = "^[A-Za-z0-9+/]*={0,2}$";

export const contentField = () =>
  z
    .string()
    .max(MAX_BASE64_LENGTH)
    .describe(
      `The content to write: text when encoding is "utf-8" (at most ${MAX_WRITE_BYTES_LIMIT} characters), base64 when it is "base64". The instance's maxWriteBytes bounds the bytes written`,
    )
    .meta({ examples: ["# Release notes\n\n- first entry\n", "aGVsbG8K"] });

/**
 * The rules `content` follows by `encoding`, as JSON Schema if/then/else: a zod refinement is not published, so
 * `.meta()` carries them into the published schema, which the host validates every call against. The zod input
 * checks the same rules with {@link checkContentByEncoding}, so zod and the published schema agree.
 */
export const contentByEncoding = {
  allOf: [
    {
      if: { properties: { encoding: { const: "base64" } }, required: ["encoding"] },
      // biome-ignore lint/suspicious/noThenProperty: "then" is the JSON Schema keyword, not a thenable
      then: { properties: { content: { pattern: BASE64_PATTERN } } },
      else: { properties: { content: { maxLength: MAX_WRITE_BYTES_LIMIT } } },
    },
  ],
};

/**
 * {@link contentByEncoding} for zod (`.superRefine()`): base64 content uses the base64 alphabet; UTF-8 content has at
 * most MAX_WRITE_BYTES_LIMIT characters, counted as JSON Schema counts them (code points).
 */
export function checkContentByEncoding(value: { content: string; encoding: Encoding }, ctx: z.RefinementCtx): void {
  if (value.encoding === "base64") {
    if (!new RegExp(BASE64_PATTERN).test(value.content)) {
      ctx.addIssue({
        code: "custom",
        path: ["content"],
        message: 'base64 content may only hold the characters A-Z a-z 0-9 + / and a trailing "=" or "=="',
      });
    }
  } else if (value.content.length > MAX_WRITE_BYTES_LIMIT && codePoints(value.content) > MAX_WRITE_BYTES_LIMIT) {
    ctx.addIssue({
      code: "custom",
      path: ["content"],
      message: `UTF-8 content may have at most ${MAX_WRITE_BYTES_LIMIT} characters`,
    });
  }
}

/** Turns a call's content into bytes, checking what the schema cannot and the instance's write limit. */
export function contentBytes(content: string, encoding: Encoding, maxWriteBytes: number): Buffer {
  let bytes: Buffer;
  if (encoding === "base64") {
    if (!new RegExp(BASE64_PATTERN).test(content) || content.length % 4 !== 0) {
      throw new SkillError({
        code: "ARGUMENT_INVALID",
        field: "/content",
        message:
          'content is not valid base64: use the characters A-Z a-z 0-9 + /, padded with "=" to a multiple of 4 characters',
      });
    }
    bytes = Buffer.from(content, "base64");
  } else {
    bytes = Buffer.from(content, "utf8");
  }
  if (bytes.length > maxWriteBytes) {
    throw new SkillError({
      code: "ARGUMENT_INVALID",
      field: "/content",
      message: `content is ${bytes.length} bytes, over this instance's limit of ${maxWriteBytes} bytes (maxWriteBytes); write the first part with write_file and add the rest with append_file`,
    });
  }
  return bytes;
}

// --- internal ---

/** A string's length in code points, as JSON Schema's maxLength counts it (a surrogate pair is one). */
function codePoints(text: string): number {
  return text.length - (text.match(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g)?.length ?? 0);
}

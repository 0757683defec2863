/** Every code a capability may answer with. Stable: clients and models branch on them. */
export const ERROR_CODES = [
  "ARGUMENT_INVALID",
  "NOT_FOUND",
  "PERMISSION_DENIED",
  "CONFLICT",
  "CONFIRMATION_REQUIRED",
  "CREDENTIALS_MISSING",
  "RATE_LIMITED",
  "TIMEOUT",
  "CANCELLED",
  "UPSTREAM_ERROR",
  "UNAVAILABLE",
  "INTERNAL",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** Options for {@link SkillError}. */
export interface SkillErrorOptions {
  code: ErrorCode;
  message: string;
  /** JSON pointer of the argument at fault, e.g. `/keyword`. */
  field?: string;
  /**
   * Whether the same call may succeed if tried again (after a fix for ARGUMENT_INVALID).
   * @default true for ARGUMENT_INVALID, CONFIRMATION_REQUIRED, RATE_LIMITED, TIMEOUT, UPSTREAM_ERROR, UNAVAILABLE
   */
  retryable?: boolean;
  /** The upstream HTTP status, when an upstream answered. */
  status?: number;
  cause?: unknown;
}

const RETRYABLE_BY_DEFAULT: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "ARGUMENT_INVALID",
  "CONFIRMATION_REQUIRED",
  "RATE_LIMITED",
  "TIMEOUT",
  "UPSTREAM_ERROR",
  "UNAVAILABLE",
]);

/**
 * The error a capability throws to answer with a stable code. The host turns it into an
 * `isError` envelope the model can read; anything else thrown becomes `INTERNAL`.
 *
 * @example
 * throw new SkillError({ code: "NOT_FOUND", message: `note "${path}" does not exist`, field: "/path" });
 */
export class SkillError extends Error {
  override readonly name = "SkillError";
  readonly code: ErrorCode;
  readonly field: string | undefined;
  readonly retryable: boolean;
  readonly status: number | undefined;

  constructor(options: SkillErrorOptions) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = options.code;
    this.field = options.field;
    this.retryable = options.retryable ?? RETRYABLE_BY_DEFAULT.has(options.code);
    this.status = options.status;
  }
}

/** True for a {@link SkillError}, also one thrown by another copy of this package. */
export function isSkillError(error: unknown): error is SkillError {
  if (error instanceof SkillError) return true;
  if (!(error instanceof Error) || error.name !== "SkillError") return false;
  const code: unknown = (error as { code?: unknown }).code;
  return typeof code === "string" && (ERROR_CODES as readonly string[]).includes(code);
}

/** What a tool can do to the world. Declared by the author, never guessed. */
export type Risk = "read_only" | "write" | "dangerous";

export const RISKS: readonly Risk[] = ["read_only", "write", "dangerous"];

/** The MCP tool annotations (hints) Skillport derives from a risk and an author's extras. */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/**
 * The MCP annotations for a risk: `read_only` → `readOnlyHint: true`; `write` → not read-only, not destructive;
 * `dangerous` → destructive. Extras (idempotentHint, openWorldHint) are kept; the risk wins on the two it decides.
 */
export function riskAnnotations(risk: Risk, extras: ToolAnnotations = {}): ToolAnnotations {
  switch (risk) {
    case "read_only":
      return { ...extras, readOnlyHint: true, destructiveHint: false };
    case "write":
      return { ...extras, readOnlyHint: false, destructiveHint: false };
    case "dangerous":
      return { ...extras, readOnlyHint: false, destructiveHint: true };
  }
}

/**
 * The tool names the Anthropic and OpenAI APIs accept. MCP allows more (a dot, up to 128 characters), but a client
 * that hands MCP tool names to a model API as they are must keep to this.
 */
const PROVIDER_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * What `pnpm start`'s banner and `skillport check` say when some served names would be refused by a model API:
 * which clients need `"separator": "_"` (or a rename), and what happens without it. Undefined when every name is
 * safe.
 */
export function providerNamesNote(names: readonly string[], separator: string, manifest: string): string | undefined {
  const refused = names.filter((name) => !PROVIDER_NAME.test(name));
  if (refused.length === 0) return undefined;
  const examples = `${refused.slice(0, 2).join(", ")}${refused.length > 2 ? ", …" : ""}`;
  const fix = separatorFixes(refused, separator)
    ? `set "separator": "_" in ${manifest}`
    : "rename them in tools.rename";
  return [
    `Tool names: ${refused.length} of ${names.length} are refused by the Anthropic and OpenAI APIs (${examples}):`,
    `  they take letters, digits, _ and - (at most 64), no ".". Claude Code and VS Code accept these names.`,
    `  Claude Desktop, Cursor, the Vercel AI SDK (@ai-sdk/mcp) and any agent that passes MCP tool names straight`,
    `  to a model API do not: they refuse the tools, or every model request fails with HTTP 400.`,
    `  For those clients, ${fix}.`,
  ].join("\n");
}

/** Whether `"separator": "_"` alone would make these names match `pattern`. */
export function separatorFixes(names: readonly string[], separator: string, pattern = PROVIDER_NAME): boolean {
  return separator === "." && names.every((name) => pattern.test(name.replaceAll(".", "_")));
}

/**
 * A failed conformance check. Its message starts with the rule and the tool: `[brief-pure] create_task: …`.
 */
export class ConformanceError extends Error {
  override readonly name = "ConformanceError";
  readonly rule: string;
  readonly tool: string | undefined;

  constructor(rule: string, tool: string | undefined, message: string) {
    super(`[${rule}]${tool === undefined ? "" : ` ${tool}:`} ${message}`);
    this.rule = rule;
    this.tool = tool;
  }
}

import { createHost } from "@skillport/host";
import { quietLogger } from "../quiet-logger.js";

export interface CallCommandOptions {
  manifest: string;
}

/** `skillport call <tool> '<json>'`: runs one call through the full pipeline and prints the envelope. */
export async function call(fullName: string, json: string, options: CallCommandOptions): Promise<number> {
  let args: unknown;
  try {
    args = JSON.parse(json);
  } catch (error) {
    process.stderr.write(
      `[skillport] the arguments are not valid JSON (${(error as Error).message}); quote them, e.g. skillport call ${fullName} '{"keyword":"agent"}'\n`,
    );
    return 2;
  }
  const host = await createHost({ manifest: options.manifest, logger: quietLogger() });
  const outcome = await host.pipeline.call(fullName, args);
  process.stdout.write(`${JSON.stringify(outcome.envelope, null, 2)}\n`);
  return outcome.isError ? 1 : 0;
}

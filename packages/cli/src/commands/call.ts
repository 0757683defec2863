import { createInterface } from "node:readline/promises";
import type { CallConfirmation, Host } from "@skillport/host";
import { createHost, DEFAULT_MANIFEST } from "@skillport/host";
import { closestNames } from "../closest-names.js";
import { messageOf } from "../message-of.js";
import { quietLogger } from "../quiet-logger.js";
import { upstreamClient } from "../upstream-client.js";

export interface CallCommandOptions {
  manifest: string;
  /** Confirm a dangerous call without asking (the brief is still printed). */
  yes?: boolean;
}

/**
 * `skillport call <tool> '<json>'`: runs one call through the full pipeline and prints the envelope. The person at
 * the terminal is the user a dangerous call is confirmed by: asked on the terminal, or `--yes`. The call's audit line
 * goes to the manifest's `audit.file` when it names one; on stderr it follows SKILLPORT_LOG_LEVEL like the log
 * (this command's default level, warn, leaves it out; info prints it).
 */
export async function call(fullName: string, json: string, options: CallCommandOptions): Promise<number> {
  let args: unknown;
  try {
    args = JSON.parse(json);
  } catch (error) {
    process.stderr.write(
      `[skillport] the arguments are not valid JSON (${messageOf(error)}); quote them, e.g. skillport call ${fullName} '{"keyword":"agent"}'\n`,
    );
    return 2;
  }
  const host = await createHost({ manifest: options.manifest, client: upstreamClient, logger: quietLogger() });
  try {
    const outcome = await host.pipeline.call(fullName, args, { confirmation: terminalConfirmation(options) });
    if (outcome.stage === "lookup") {
      process.stderr.write(`${unknownTool(fullName, host, options.manifest)}\n`);
      return 1;
    }
    process.stdout.write(`${JSON.stringify(outcome.envelope, null, 2)}\n`);
    return outcome.isError ? 1 : 0;
  } finally {
    await host.close();
  }
}

// --- internal ---

/** Says which tools come close to an unknown name, and how to list them all. */
function unknownTool(fullName: string, host: Host, manifest: string): string {
  const close = closestNames(fullName, host.registry.tools.keys(), host.manifest.separator);
  const guess = close.length === 0 ? "" : ` did you mean ${close.join(" or ")}?`;
  const list = manifest === DEFAULT_MANIFEST ? "skillport list" : `skillport list --manifest ${shellWord(manifest)}`;
  return `[skillport] unknown tool "${fullName}";${guess} ${list} names every tool this manifest serves`;
}

/** A word as a POSIX shell reads it back: quoted only when it needs to be. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

function terminalConfirmation(options: CallCommandOptions): CallConfirmation {
  if (options.yes === true) {
    return {
      ask: async (question) => {
        process.stderr.write(`[skillport] confirmed with --yes: ${question.tool} wants to: ${question.brief}\n`);
        return true;
      },
    };
  }
  if (process.stdin.isTTY !== true) {
    return {
      ask: async (question) => {
        process.stderr.write(
          `[skillport] ${question.tool} is dangerous and needs confirmation: ${question.brief}. Stdin is not a terminal, so nobody can be asked; pass --yes to confirm it\n`,
        );
        return false;
      },
    };
  }
  return {
    ask: async (question) => {
      const terminal = createInterface({ input: process.stdin, output: process.stderr });
      try {
        const reply = await terminal.question(`${question.message} [y/N] `);
        return /^y(es)?$/i.test(reply.trim());
      } finally {
        terminal.close();
      }
    },
  };
}

import { randomUUID } from "node:crypto";
import type { CredentialResolver } from "../../credentials/resolve-credentials.js";
import type { Answered, ResumedCall } from "../call.js";
import { answer, passOn } from "../call.js";
import { failureOutcome } from "../envelope.js";

/**
 * Resolves the caller's own credentials for a tool whose owner has per-caller slots (see ToolOwner.perCaller), just
 * before it runs (after confirmation, before a task is made): a caller without one is answered CREDENTIALS_MISSING
 * with a connect link minted for them, and nothing runs. The pipeline runs it only for such a tool.
 */
export function createCredentials(resolver: CredentialResolver | undefined) {
  return function credentials(call: ResumedCall): Answered | Promise<ResumedCall | Answered> {
    const slots = call.entry.instance.perCaller;
    if (resolver === undefined) {
      return answer(
        call,
        "credentials",
        failureOutcome(
          call,
          "CREDENTIALS_MISSING",
          `${call.entry.fullName} needs each caller's own credential, and this host keeps none: add "credentials" (its keys) to the manifest`,
        ),
      );
    }
    return resolver.resolve(slots, call.options.caller).then((resolution) => {
      if (resolution.ok) return passOn.credentialed(call, resolution.values);
      const { link } = resolution;
      const outcome = failureOutcome(
        call,
        resolution.code,
        `${call.entry.fullName} cannot run: ${resolution.message}`,
        {
          retryable: resolution.code === "UNAVAILABLE" || link !== undefined,
          ...(link === undefined ? {} : { connectUrl: link.url, expiresAt: new Date(link.expiresAt).toISOString() }),
        },
      );
      return answer(
        call,
        "credentials",
        link === undefined
          ? outcome
          : {
              ...outcome,
              connect: {
                url: link.url,
                elicitationId: randomUUID(),
                message: `Connect ${resolution.slot.label} to let ${call.entry.fullName} act as you`,
              },
            },
      );
    });
  };
}

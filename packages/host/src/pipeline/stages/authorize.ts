import { missingScopes } from "../../entries/check-scopes.js";
import type { Answered, Call } from "../call.js";
import { answer } from "../call.js";
import { failureOutcome } from "../envelope.js";

/**
 * The caller must hold the tool's scopes (HTTP callers; local calls are not checked), and the instance must have
 * its required credentials. Nothing is loaded yet.
 */
export function authorize(call: Call): Call | Answered {
  const { entry, options } = call;
  const missing = missingScopes(entry, options.caller);
  if (missing !== undefined) {
    const them = missing.length === 1 ? "it" : "them";
    return answer(
      call,
      "authorize",
      failureOutcome(
        call,
        "PERMISSION_DENIED",
        `${entry.fullName} requires the scope${missing.length === 1 ? "" : "s"} ${missing.join(", ")}, which caller "${options.caller?.id}" does not hold; ask for a token with ${them}`,
      ),
    );
  }
  const { missingCredentials } = entry.instance;
  if (missingCredentials.length > 0) {
    return answer(
      call,
      "authorize",
      failureOutcome(call, "CREDENTIALS_MISSING", `${entry.fullName} cannot run: ${missingCredentials.join("; ")}`),
    );
  }
  return call;
}

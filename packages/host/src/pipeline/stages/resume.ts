import type { Answered, ResumedCall, ValidatedCall } from "../call.js";
import { answer, passOn } from "../call.js";
import type { Confirmations, Redemption } from "../confirmations.js";
import { INPUT_STATE_PREFIX } from "../confirmations.js";
import { failureOutcome } from "../envelope.js";

/**
 * A call that carries the state of a round of questions its capability asked (`ctx.elicit`, …) picks up the
 * answers of the earlier rounds, when the state is one this server minted for this tool, these arguments and this
 * caller, unexpired and not used before. State that fails any of this is refused (the transport answers invalid
 * params): the call is not run on answers nobody can vouch for. Other calls (and a dangerous call's confirmation
 * state, checked by confirm) pass through.
 */
export function createResume(confirmations: Confirmations) {
  // A call without round state (nearly every call) goes on in the same turn.
  return function resume(call: ValidatedCall): ResumedCall | Promise<ResumedCall | Answered> {
    const state = call.options.input?.state;
    if (state === undefined || !state.startsWith(INPUT_STATE_PREFIX)) return passOn.resumed(call, undefined);
    return resumeRound(call, state);
  };

  async function resumeRound(call: ValidatedCall, state: string): Promise<ResumedCall | Answered> {
    const subject = { tool: call.entry.fullName, args: call.args, caller: call.options.caller?.id };
    const { verdict, round } = await confirmations.resume(state, subject);
    if (round !== undefined) return passOn.resumed(call, round);
    if (verdict === "unavailable") {
      const message = `${call.entry.fullName} did not run: its round state cannot be checked against the shared state store, which cannot be reached now; retry shortly`;
      return answer(call, "resume", failureOutcome(call, "UNAVAILABLE", message, { retryable: true }));
    }
    const message = `requestState ${WHY[verdict]}; call ${call.entry.fullName} again without it to start over`;
    return answer(call, "resume", { ...failureOutcome(call, "ARGUMENT_INVALID", message), rejected: message });
  }
}

/** What a round's state is refused for, as the error says it. */
export const WHY: Record<Redemption, string> = {
  ok: "was accepted",
  invalid: "failed its integrity check (it is not state this server minted)",
  expired: "has expired",
  mismatch: "was minted for another call (other tool or arguments)",
  "other-caller": "was minted for another caller",
  reused: "was already used",
  forgotten: "was minted before the shared state store lost its data (or restarted), so it cannot be checked",
  unavailable: "cannot be checked now (the shared state store cannot be reached)",
};

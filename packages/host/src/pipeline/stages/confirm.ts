import { TRACE_EVENTS } from "../../tracing/tracing.js";
import type { Answered, ConfirmationQuestion, ResumedCall } from "../call.js";
import { answer } from "../call.js";
import type { ConfirmationSubject, Confirmations } from "../confirmations.js";
import { unlessUnavailable } from "../confirmations.js";
import type { Outcome } from "../envelope.js";
import { failureOutcome } from "../envelope.js";
import { CONFIRM_ARGUMENT } from "./migrate.js";

/** What confirming dangerous calls needs. */
export interface ConfirmOptions {
  confirmations: Confirmations;
  /** What a dangerous call answers when its client cannot ask the user. */
  fallback: "refuse" | "operation-id";
}

/**
 * A dangerous call runs only when the manifest allows it and its user confirmed these exact arguments: asked in
 * process, or through the client (an answer counts only with the state this server minted for the question, for
 * this tool, these arguments and this caller, once), or, where the manifest opts in, with a one-time operation id.
 * Other calls pass through. Decided on the loaded tool's risk, never on what a lock said.
 */
export function createConfirm({ confirmations, fallback }: ConfirmOptions) {
  // Only a dangerous call waits here; any other goes on in the same turn.
  return function confirm(call: ResumedCall): ResumedCall | Promise<ResumedCall | Answered> {
    return call.runnable.risk === "dangerous" ? confirmDangerous(call) : call;
  };

  async function confirmDangerous(call: ResumedCall): Promise<ResumedCall | Answered> {
    const outcome = await refusal(call);
    const trace = call.options.trace;
    if (trace !== undefined) {
      // The decision, by the code it answered with: asked (the user or the client is asked, or an operation id
      // issued), refused, or accepted (the call runs).
      const code = outcome === undefined || outcome.envelope.ok ? undefined : outcome.envelope.error.code;
      const asking = code === "CONFIRMATION_REQUIRED" ? via(outcome) : undefined;
      if (code === undefined) trace.event(TRACE_EVENTS.confirmationAccepted);
      else if (asking !== undefined)
        trace.event(TRACE_EVENTS.confirmationAsked, { "skillport.confirmation.via": asking });
      else trace.event(TRACE_EVENTS.confirmationRefused, { "skillport.outcome": code });
    }
    return outcome === undefined ? call : answer(call, "confirm", outcome);
  }

  async function refusal(call: ResumedCall): Promise<Outcome | undefined> {
    const { entry, args, options } = call;
    const brief = call.brief ?? `Run ${entry.fullName}`;
    if (!entry.instance.allow.has(entry.toolName)) {
      return failureOutcome(
        call,
        "PERMISSION_DENIED",
        `${entry.fullName} is dangerous and this server does not allow it; to enable it add "${entry.toolName}" to ${entry.instance.where}.allow in the manifest`,
      );
    }
    // A later round of the same call (its state bound to this tool, these arguments and this caller) was confirmed.
    if (call.round?.confirmed === true) return undefined;
    const subject: ConfirmationSubject = { tool: entry.fullName, args, caller: options.caller?.id };
    if (call.operationId !== undefined) return redeem(call, subject);
    const question: ConfirmationQuestion = {
      tool: entry.fullName,
      brief,
      message: `${entry.fullName} wants to: ${sentence(brief)}Allow it?`,
    };
    const how = options.confirmation ?? {};
    if (how.ask !== undefined) {
      return (await how.ask(question))
        ? undefined
        : failureOutcome(call, "PERMISSION_DENIED", `the user declined: ${brief}`);
    }
    const given = how.answer;
    if (given !== undefined && given.action !== "accept") {
      return failureOutcome(call, "PERMISSION_DENIED", `the user declined: ${brief}`);
    }
    if (given?.state !== undefined) {
      const verdict = await confirmations.answer(given.state, subject);
      if (verdict === "ok") return undefined;
      if (verdict === "unavailable") return storeUnavailable(call);
      if (verdict === "reused") {
        return failureOutcome(
          call,
          "PERMISSION_DENIED",
          `this confirmation was already used; call ${entry.fullName} again to ask the user anew`,
          { retryable: true },
        );
      }
      // Any other answer (expired, for other arguments or another caller, not minted here) asks again: the user
      // must see what will run now.
    }
    if (how.elicit === true) {
      const asked = await unlessUnavailable(confirmations.ask(subject));
      if (asked === undefined) return cannotAsk(call);
      const { state } = asked;
      const asking = failureOutcome(call, "CONFIRMATION_REQUIRED", `Confirm: ${brief}`, { retryable: true });
      return { ...asking, elicit: { message: question.message, state } };
    }
    if (fallback === "refuse") {
      return failureOutcome(
        call,
        "CONFIRMATION_REQUIRED",
        `${entry.fullName} is dangerous and runs only after its user confirms it (${brief}), but this client cannot ask its user (MCP elicitation); use a client that can, or, as the server's operator, set confirmation.fallback to "operation-id" in the manifest`,
        { retryable: false },
      );
    }
    const issued = await unlessUnavailable(confirmations.issue(subject));
    if (issued === undefined) return cannotAsk(call);
    const { operationId, expiresAt } = issued;
    return failureOutcome(
      call,
      "CONFIRMATION_REQUIRED",
      `Confirm: ${sentence(brief)}Ask the user; to run it, repeat the same call with "${CONFIRM_ARGUMENT}": "${operationId}" before ${expiresAt.toISOString()}`,
      { retryable: true, operationId, expiresAt: expiresAt.toISOString() },
    );
  }

  async function redeem(call: ResumedCall, subject: ConfirmationSubject): Promise<Outcome | undefined> {
    const field = `/${CONFIRM_ARGUMENT}`;
    const { fullName } = call.entry;
    if (fallback !== "operation-id") {
      return failureOutcome(
        call,
        "PERMISSION_DENIED",
        `this server does not take operation ids (confirmation.fallback is "refuse"); leave out ${CONFIRM_ARGUMENT} and confirm through a client that can ask its user`,
        { field },
      );
    }
    const verdict =
      typeof call.operationId === "string" ? await confirmations.redeem(call.operationId, subject) : "invalid";
    if (verdict === "ok") return undefined;
    if (verdict === "unavailable") return storeUnavailable(call);
    const why = {
      invalid: "is not an operation id this server issued",
      expired: "has expired",
      mismatch: "was issued for other arguments",
      "other-caller": "was issued to another caller",
      reused: "was already used",
      forgotten: "was issued before the shared state store lost its data (or restarted), so it cannot be checked",
    }[verdict];
    return failureOutcome(
      call,
      "PERMISSION_DENIED",
      `the ${CONFIRM_ARGUMENT} operation id ${why}; call ${fullName} again without ${CONFIRM_ARGUMENT} to get a new one`,
      { field, retryable: true },
    );
  }
}

// --- internal ---

/** How a user is asked: through the client (elicitation) or with an operation id; undefined: not at all (refused). */
function via(outcome: Outcome | undefined): string | undefined {
  if (outcome?.elicit !== undefined) return "elicitation";
  return outcome?.envelope.ok === false && outcome.envelope.error.operationId !== undefined
    ? "operation-id"
    : undefined;
}

/** A brief ended before the next sentence: a one-line brief with a full stop, one of several lines with a break. */
function sentence(brief: string): string {
  return brief.includes("\n") ? `${brief}\n` : `${brief}. `;
}

/**
 * The confirmation holds, but whether it was already used cannot be known now (the shared state store cannot be
 * reached): the call does not run, so it can never run twice. The token was not taken unless the store recorded it
 * before the connection failed, in which case a retry with it answers "already used" and the user is asked anew.
 */
function storeUnavailable(call: ResumedCall): Outcome {
  return failureOutcome(
    call,
    "UNAVAILABLE",
    `${call.entry.fullName} did not run: the confirmation cannot be checked against the shared state store, which cannot be reached now; retry shortly`,
    { retryable: true },
  );
}

/**
 * No confirmation can be issued now: what it would carry (the shared state store's generation) cannot be read, so
 * the user is not asked a question whose answer could not be checked. Nothing ran.
 */
function cannotAsk(call: ResumedCall): Outcome {
  return failureOutcome(
    call,
    "UNAVAILABLE",
    `${call.entry.fullName} did not run: no confirmation can be issued while the shared state store cannot be reached; retry shortly`,
    { retryable: true },
  );
}

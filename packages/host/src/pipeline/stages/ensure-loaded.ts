import { isSkillError } from "@skillport/core";
import type { ToolOwner } from "../../entries/tool-entry.js";
import { messageOf } from "../../errors/host-error.js";
import type { Logger } from "../../logging/logger.js";
import type { Answered, Call, LoadedCall } from "../call.js";
import { answer, passOn } from "../call.js";
import { failureOutcome } from "../envelope.js";

/**
 * The entry's code, resolved once (a skill imported on its first call when the host started from the lock). When
 * it cannot be had, this entry answers UNAVAILABLE with the cause and every other entry keeps working; the cause is
 * logged once per instance.
 */
export function createEnsureLoaded(logger: Logger) {
  const logged = new Set<ToolOwner>();
  // Once an entry's code is resolved for good, a call goes on in the same turn.
  return function ensureLoaded(call: Call): LoadedCall | Promise<LoadedCall | Answered> {
    const { resolved } = call.entry;
    return resolved === undefined ? load(call) : passOn.loaded(call, resolved);
  };

  async function load(call: Call): Promise<LoadedCall | Answered> {
    const { instance } = call.entry;
    try {
      return passOn.loaded(call, await call.entry.resolve());
    } catch (error) {
      if (!logged.has(instance)) {
        logged.add(instance);
        logger.error(
          { instance: instance.id, err: error },
          "a skill could not be loaded; its tools answer UNAVAILABLE",
        );
      }
      // An upstream server that is down or restarting may answer on the next try: its entry says so.
      const retryable = isSkillError(error) && error.retryable;
      // An entry that refuses for good (an upstream tool whose pattern RE2 cannot run) says so itself.
      const refused = isSkillError(error) && error.code === "UNAVAILABLE" && !retryable;
      const message = refused
        ? `${messageOf(error)}; every other tool keeps working`
        : retryable
          ? `${instance.id} is unavailable (${messageOf(error)}); retry shortly, every other tool keeps working`
          : `${instance.id} could not be loaded (${messageOf(error)}); its tools are unavailable, every other tool keeps working`;
      return answer(call, "ensure-loaded", failureOutcome(call, "UNAVAILABLE", message, { retryable }));
    }
  }
}

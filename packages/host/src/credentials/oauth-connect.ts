import type { CallerSlot } from "./caller-slot.js";
import type { Refresh } from "./resolve-credentials.js";

/**
 * How a caller connects a slot through OAuth (authorization code with PKCE, the MCP SDK client's OAuth support):
 * `start` gives the authorization server's URL to send their browser to; `finish` takes the callback's parameters.
 */
export interface OAuthConnections {
  /** The URL to send the caller's browser to; the flow's state is kept sealed until the callback, once. */
  start(slot: CallerSlot, caller: string): Promise<{ authorizationUrl: string }>;
  /**
   * Finishes a flow from the callback: refused unless `state` names a flow started for `browserCaller` (the caller
   * signed in on the page), once. Keeps the caller's tokens.
   */
  finish(
    params: { state: string; code: string; iss?: string | undefined },
    browserCaller: string,
  ): Promise<{ ok: true; slot: string } | { ok: false; reason: string }>;
  /** The resolver's refresh: a new access token before the kept one expires, or undefined when it cannot be had. */
  refresh: Refresh;
}

/**
 * What stops one run: the client's cancel, the tool's timeout, or the run's own questions to the client. It works
 * like an AbortController, but makes its AbortSignal only when something asks for one (a capability reading
 * `ctx.signal`, a fetch, a request to an upstream server): Node 20 builds every AbortSignal slowly (a few
 * microseconds each, more than the rest of a plain call's bookkeeping), and most calls never read it. Once made, the
 * signal aborts with the same reason, before the stop's own listeners hear it.
 */
export class CallStop {
  #aborted = false;
  #reason: unknown;
  #controller: AbortController | undefined;
  #listeners: Array<(reason: unknown) => void> = [];

  get aborted(): boolean {
    return this.#aborted;
  }

  /** Why it stopped; undefined until then. */
  get reason(): unknown {
    return this.#reason;
  }

  /** An AbortSignal that follows this stop, made on first use. */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** Stops the run with `reason` (an AbortError by default); only the first call counts. */
  abort(reason: unknown = new DOMException("This operation was aborted", "AbortError")): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const listener of listeners) listener(reason);
  }

  /** Calls `listener` once, when it stops (at once if it has); answers a function that takes it back. */
  onAbort(listener: (reason: unknown) => void): () => void {
    if (this.#aborted) {
      listener(this.#reason);
      return () => undefined;
    }
    this.#listeners.push(listener);
    return () => {
      const at = this.#listeners.indexOf(listener);
      if (at !== -1) this.#listeners.splice(at, 1);
    };
  }

  /** Throws the reason once it has stopped, as AbortSignal.throwIfAborted does. */
  throwIfAborted(): void {
    if (this.#aborted) throw this.#reason;
  }
}

import type { CallStop } from "./call-stop.js";

/** Thrown by {@link Limiter.acquire} when the queue is full. */
export class QueueFullError extends Error {
  override readonly name = "QueueFullError";
}

/**
 * Bounds one instance's calls: `concurrency` run at once, up to `queue` wait, the rest are refused at once
 * (the pipeline answers RATE_LIMITED) instead of piling up. A waiting call leaves the queue when its stop aborts.
 */
export class Limiter {
  private active = 0;
  private readonly waiting: Array<{
    resolve: () => void;
    forget: () => void;
  }> = [];

  constructor(
    readonly concurrency: number,
    readonly queue: number,
  ) {}

  /**
   * A release function once a slot is free: at once when one is (no promise, so the caller goes on in the same
   * turn), else a promise of it; a promise rejected with the stop's reason once it has stopped. Never throws.
   */
  acquire(stop: Pick<CallStop, "aborted" | "reason" | "onAbort">): (() => void) | Promise<() => void> {
    if (stop.aborted) return Promise.reject(stop.reason);
    if (this.active < this.concurrency) {
      this.active++;
      return this.releaser();
    }
    return this.queued(stop);
  }

  /** Calls running now and calls waiting. */
  get load(): { active: number; waiting: number } {
    return { active: this.active, waiting: this.waiting.length };
  }

  // --- internal ---

  /** Waits in the queue for a slot, when the queue has room. */
  private async queued(stop: Pick<CallStop, "onAbort">): Promise<() => void> {
    if (this.waiting.length >= this.queue) {
      throw new QueueFullError(`${this.active} calls are running and ${this.waiting.length} are waiting`);
    }
    await new Promise<void>((resolve, reject) => {
      const waiter: { resolve: () => void; forget: () => void } = { resolve, forget: () => undefined };
      this.waiting.push(waiter);
      waiter.forget = stop.onAbort((reason) => {
        const at = this.waiting.indexOf(waiter);
        if (at !== -1) this.waiting.splice(at, 1);
        reject(reason);
      });
    });
    return this.releaser();
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next === undefined) {
        this.active--;
        return;
      }
      next.forget();
      next.resolve(); // the slot passes straight to the next call
    };
  }
}

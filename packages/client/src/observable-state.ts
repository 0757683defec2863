import type { ClientError, ConnectionState, ObservableState, StateSnapshot, ToolSpec } from "./types.js";

/** A handle's state and the writer only the handle holds. */
export interface StateCell {
  readonly observable: ObservableState;
  readonly snapshot: StateSnapshot;
  set(value: ConnectionState, detail?: { error?: ClientError; tools?: readonly ToolSpec[] }): void;
  /** While ready: a new tool list (after `notifications/tools/list_changed`). */
  setTools(tools: readonly ToolSpec[]): void;
}

/**
 * The state of one handle: a current snapshot, listeners called on every change, and async iterators that get
 * the current snapshot first and then every change in order (each iterator queues what it has not read yet).
 */
export function createStateCell(): StateCell {
  let snapshot: StateSnapshot = { value: "idle", change: "state" };
  const listeners = new Set<(snapshot: StateSnapshot) => void>();

  const publish = (next: StateSnapshot) => {
    snapshot = next;
    for (const listener of [...listeners]) {
      try {
        listener(next);
      } catch {
        // A listener's failure is its own; the handle and the other listeners go on.
      }
    }
  };

  const subscribe = (listener: (snapshot: StateSnapshot) => void) => {
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  };

  const observable: ObservableState = {
    get value() {
      return snapshot.value;
    },
    get error() {
      return snapshot.error;
    },
    get tools() {
      return snapshot.tools;
    },
    subscribe,
    [Symbol.asyncIterator]: () => iterate(snapshot, subscribe),
  };

  return {
    observable,
    get snapshot() {
      return snapshot;
    },
    set(value, detail = {}) {
      publish({
        value,
        change: "state",
        ...(detail.error === undefined ? {} : { error: detail.error }),
        ...(detail.tools === undefined ? {} : { tools: detail.tools }),
      });
    },
    setTools(tools) {
      if (snapshot.value === "ready") publish({ value: "ready", change: "tools", tools });
    },
  };
}

// --- internal ---

function iterate(
  first: StateSnapshot,
  subscribe: (listener: (snapshot: StateSnapshot) => void) => () => void,
): AsyncIterableIterator<StateSnapshot> {
  const queue: StateSnapshot[] = [first];
  let wake: ((result: IteratorResult<StateSnapshot>) => void) | undefined;
  let done = false;
  const unsubscribe = subscribe((snapshot) => {
    if (wake !== undefined) {
      const resolve = wake;
      wake = undefined;
      resolve({ value: snapshot, done: false });
    } else {
      queue.push(snapshot);
    }
  });
  const finish = (): Promise<IteratorResult<StateSnapshot>> => {
    done = true;
    unsubscribe();
    queue.length = 0;
    wake?.({ value: undefined, done: true });
    wake = undefined;
    return Promise.resolve({ value: undefined, done: true });
  };
  const iterator: AsyncIterableIterator<StateSnapshot> = {
    next() {
      if (done) return Promise.resolve({ value: undefined, done: true });
      const queued = queue.shift();
      if (queued !== undefined) return Promise.resolve({ value: queued, done: false });
      return new Promise((resolve) => {
        wake = resolve;
      });
    },
    return: finish,
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}

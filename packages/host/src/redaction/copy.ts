// The one deep copy the redactor makes of a value: every string and property name passed through the redactor, any
// depth, cycles and shared values kept as such.

/** What {@link copyRedacted} does with the texts and bytes it meets. */
export interface CopyRules {
  /** A text, redacted. */
  string(text: string): string;
  /** A property name, redacted. */
  key(name: string): string;
  /** What stands in for bytes that hold a secret, or undefined when they hold none (they are kept as they are). */
  bytes(content: Uint8Array): string | undefined;
}

/**
 * A deep copy of `root` with every string and property name redacted by `rules`, as {@link Redactor.value}
 * promises: any depth (nesting is copied by recursion down to NESTING levels; what lies deeper waits on a list and is
 * copied the same way after, so no value overflows the stack), each object copied once (cycles and shared values
 * stay so), keys in their order. Arrays become arrays; an error stays an error of the same class with every own
 * property (message, stack, cause, errors, fields) copied and its enumerability kept; a value with `toJSON` (a
 * date, a URL) is replaced by the copy of what it returns; bytes holding a secret are replaced; any other object
 * becomes a plain object of its own enumerable properties.
 *
 * @example
 * copyRedacted({ token: "sk-1234…", n: 1 }, rules); // { token: "[REDACTED]", n: 1 }
 */
export function copyRedacted(root: unknown, rules: CopyRules): unknown {
  if (typeof root === "string") return rules.string(root);
  if (typeof root !== "object" || root === null) return root;
  const copier = new Copier(rules);
  const copy = copier.copy(root, NESTING);
  copier.finish();
  return copy;
}

// --- internal ---

/** Levels copied by recursion before a container waits on the list. */
const NESTING = 64;
/** Objects whose copies are found along a list before a map takes over. */
const LISTED_COPIES = 16;
/** The copy of a value whose `toJSON` returned undefined. */
const NOTHING = Symbol("nothing");

type Container = Record<string, unknown> | unknown[];

/** One copy in the making: the copies made so far, and the containers left to fill. */
class Copier {
  /**
   * Each object copied so far and its copy. The first few are kept in lists and found by looking along them: a map
   * gives every object it holds an identity hash, which cost a fresh object more than the rest of its copy, and
   * most values redacted (an answer's envelope, an audit record) hold a handful of objects.
   */
  private readonly sources: object[] = [];
  private readonly copies: unknown[] = [];
  private map: Map<object, unknown> | undefined;
  /** Containers met NESTING levels down, each copy after its source: filled by {@link finish}. */
  private waiting: (Container | object)[] | undefined;

  constructor(private readonly rules: CopyRules) {}

  copy(value: unknown, depth: number): unknown {
    if (typeof value === "string") return this.rules.string(value);
    if (typeof value !== "object" || value === null) return value;
    const known = this.known(value);
    if (known !== undefined) return known === NOTHING ? undefined : known;
    if (Array.isArray(value)) {
      const copy: unknown[] = [];
      this.remember(value, copy);
      this.fillArray(copy, value, depth);
      return copy;
    }
    // Most objects are plain (an envelope, its content blocks): copied with no more look.
    if (
      typeof (value as { toJSON?: unknown }).toJSON !== "function" &&
      !(value instanceof Error) &&
      !ArrayBuffer.isView(value)
    ) {
      const copy: Record<string, unknown> = {};
      this.remember(value, copy);
      this.fillObject(copy, value, depth);
      return copy;
    }
    return this.copyOther(value, depth);
  }

  /** Fills the containers that waited, each from NESTING levels again, until none is left. */
  finish(): void {
    const waiting = this.waiting;
    if (waiting === undefined) return;
    while (waiting.length > 0) {
      const source = waiting.pop() as object;
      const copy = waiting.pop() as Container;
      if (Array.isArray(source)) this.fillArray(copy as unknown[], source, NESTING);
      else if (source instanceof Error) this.fillError(copy as Record<string, unknown>, source, NESTING);
      else this.fillObject(copy as Record<string, unknown>, source, NESTING);
    }
  }

  /**
   * Bytes, an error, or a value with `toJSON`, which stands for what it returns: copied as that, and found again as
   * that (each value along a chain of `toJSON`s too).
   */
  private copyOther(value: object, depth: number): unknown {
    let source = value;
    const standIns: object[] = [];
    for (;;) {
      if (ArrayBuffer.isView(source)) {
        const bytes = new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
        return this.standingFor(standIns, this.rules.bytes(bytes) ?? source);
      }
      if (source instanceof Error) {
        // An error of the same class, every own property (message, stack, cause, errors, fields) redacted.
        const copy = Object.create(Object.getPrototypeOf(source)) as Record<string, unknown>;
        this.remember(source, copy);
        this.standingFor(standIns, copy);
        this.fillError(copy, source, depth);
        return copy;
      }
      const toJSON = (source as { toJSON?: unknown }).toJSON;
      let json: unknown = source;
      if (typeof toJSON === "function") {
        try {
          json = toJSON.call(source);
        } catch {
          // Copied as a plain object below.
        }
      }
      if (json === source) break;
      standIns.push(source);
      if (typeof json !== "object" || json === null) return this.standingFor(standIns, this.copy(json, depth));
      const known = this.known(json);
      if (known !== undefined) return this.standingFor(standIns, known);
      if (Array.isArray(json)) {
        const copy: unknown[] = [];
        this.remember(json, copy);
        this.standingFor(standIns, copy);
        this.fillArray(copy, json, depth);
        return copy;
      }
      source = json;
    }
    const copy: Record<string, unknown> = {};
    this.remember(source, copy);
    this.standingFor(standIns, copy);
    this.fillObject(copy, source, depth);
    return copy;
  }

  /** Remembers `copy` as the copy of each value whose `toJSON` led to it; answers it. */
  private standingFor(standIns: readonly object[], copy: unknown): unknown {
    for (const standIn of standIns) this.remember(standIn, copy === undefined ? NOTHING : copy);
    return copy === NOTHING ? undefined : copy;
  }

  /** Leaves a container to {@link finish}: it lies NESTING levels down. */
  private wait(copy: Container, source: object): void {
    if (this.waiting === undefined) this.waiting = [copy, source];
    else this.waiting.push(copy, source);
  }

  private fillArray(copy: unknown[], source: readonly unknown[], depth: number): void {
    if (depth === 0) {
      this.wait(copy, source);
      return;
    }
    for (let i = 0; i < source.length; i++) copy.push(this.copy(source[i], depth - 1));
  }

  private fillObject(copy: Record<string, unknown>, source: object, depth: number): void {
    if (depth === 0) {
      this.wait(copy, source);
      return;
    }
    const key = this.rules.key;
    for (const property of Object.keys(source)) {
      const name = key(property);
      const value = this.copy((source as Record<string, unknown>)[property], depth - 1);
      if (name === "__proto__") this.set(copy, name, value);
      else copy[name] = value;
    }
  }

  /**
   * Every own property is defined first, last to first as errors have always been copied (so the copy lists them in
   * that order), keeping whether it is enumerable; then each gets its value.
   */
  private fillError(copy: Record<string, unknown>, source: Error, depth: number): void {
    if (depth === 0) {
      this.wait(copy, source);
      return;
    }
    const own = Object.getOwnPropertyNames(source);
    const names: string[] = [];
    for (let i = own.length - 1; i >= 0; i--) {
      const property = own[i] as string;
      const enumerable = Object.getOwnPropertyDescriptor(source, property)?.enumerable ?? true;
      const name = this.rules.key(property);
      names[i] = name;
      Object.defineProperty(copy, name, { value: undefined, enumerable, writable: true, configurable: true });
    }
    for (let i = 0; i < own.length; i++) {
      const value = this.copy((source as unknown as Record<string, unknown>)[own[i] as string], depth - 1);
      this.set(copy, names[i] as string, value);
    }
  }

  /** Sets a member of a copy; an own `__proto__` stays an own property (assigned, it would set the prototype). */
  private set(copy: Record<string, unknown>, name: string, value: unknown): void {
    if (name === "__proto__") Object.defineProperty(copy, name, { value, enumerable: true, writable: true });
    else copy[name] = value;
  }

  private known(source: object): unknown {
    if (this.map !== undefined) return this.map.get(source);
    const at = this.sources.indexOf(source);
    return at === -1 ? undefined : this.copies[at];
  }

  private remember(source: object, copy: unknown): void {
    if (this.map === undefined && this.sources.length < LISTED_COPIES) {
      this.sources.push(source);
      this.copies.push(copy);
      return;
    }
    this.map ??= new Map(this.sources.map((s, i) => [s, this.copies[i]]));
    this.map.set(source, copy);
  }
}

/**
 * The one error base of every layer, and the one form in which an error crosses a thread.
 *
 * Every error pcg throws on purpose is a `PcgError`: a stable `code` from its layer's registry (engine/errors.ts,
 * connectors/files/errors.ts, api/errors.ts, api/backup/errors.ts, api/cli/errors.ts), and whether trying again
 * may succeed (`retriable`), as kafkajs's KafkaJSError has. Callers branch on the class and the code, never on a
 * message or a class-name string.
 *
 * Errors lose their class when posted to or from a worker thread (structured clone keeps only Error's own fields),
 * so every thread host sends `toWire(error)` and throws `fromWire(wire)` on its side: the same class with the same
 * code and fields comes back, and the error boundary (api/errors.ts, toApiError) maps it as if thrown locally.
 */

/** One row of a layer's registry: what the code means, and whether trying again may succeed. */
export interface ErrorEntry {
  message: string;
  retriable: boolean;
}

/** A layer's registry: every code it throws with its entry; `keyof` of one is the layer's code type. */
export type ErrorRegistry<C extends string = string> = Readonly<Record<C, ErrorEntry>>;

/** Fields of an error that survive structured clone: plain data only. */
export type WireFields = Record<string, unknown>;

/** An error as it crosses a thread boundary: what the receiving side needs to make the same error again. */
export interface WireError {
  /** The class's wire name (PcgError.name), or a foreign error's own name (SqliteError, TypeError). */
  name: string;
  /** A registry code for a PcgError; a foreign error's own code (SQLITE_BUSY, ENOENT) when it had one. */
  code?: string;
  message: string;
  retriable: boolean;
  /** The class's own fields (an ApiError's headers, a line number): see PcgError.wireFields. */
  fields?: WireFields;
  /**
   * The wire names of the registered classes it extends, nearest first: a side that has not loaded the class itself
   * (an XmlError's module) makes the nearest one it has (a FileImportError), with the same code.
   */
  bases?: string[];
}

export class PcgError<C extends string = string> extends Error {
  readonly code: C;
  readonly retriable: boolean;
  constructor(code: C, message: string, options: { retriable?: boolean; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    // The class's name, set by each subclass as a literal (bundlers may rename classes): the key of its reviver.
    this.name = 'PcgError';
    this.code = code;
    this.retriable = options.retriable ?? false;
  }

  /** The fields beyond code and message this class needs to be made again on the other side of a thread. */
  wireFields(): WireFields | undefined {
    return undefined;
  }
}

type Reviver = (wire: WireError & { code: string }) => PcgError;
const revivers = new Map<string, Reviver>();
const wireNames = new Map<object, string>();

/**
 * Registers how a class is made again from its wire form, under its wire name; each class's module does it
 * beside the class, so a side that can name the class (import it) can also receive it.
 */
export function registerWireError<T extends PcgError>(name: string, cls: abstract new (...args: any[]) => T, revive: Reviver): void {
  const known = wireNames.get(cls);
  if (revivers.has(name) && known !== name) throw new Error(`two error classes claim the wire name ${name}`);
  revivers.set(name, revive);
  wireNames.set(cls, name);
}

/** The wire names of the classes registered so far (for tests: every class can make the round trip). */
export function wireErrorNames(): string[] {
  return [...revivers.keys()];
}

/** Any thrown value in its wire form. A foreign error keeps its name and code, which is all the foreign table reads. */
export function toWire(error: unknown): WireError {
  if (error instanceof PcgError) {
    const fields = error.wireFields();
    const bases: string[] = [];
    for (let p = Object.getPrototypeOf(Object.getPrototypeOf(error)); p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
      const base = wireNames.get(p.constructor);
      if (base) bases.push(base);
    }
    return { name: error.name, code: error.code, message: error.message, retriable: error.retriable, ...(fields ? { fields } : {}), ...(bases.length ? { bases } : {}) };
  }
  if (error instanceof Error) {
    // kafkajs's errors say themselves whether a retry may succeed; others are taken not to.
    const { code, retriable } = error as { code?: unknown; retriable?: unknown };
    return { name: error.name, ...(typeof code === 'string' ? { code } : {}), message: error.message, retriable: retriable === true };
  }
  return { name: 'Error', message: String(error), retriable: false };
}

/**
 * The error a wire form stood for: the registered class, or, for a foreign error or a class this side has not
 * loaded, an Error with the same name and code (which is what the foreign table maps by).
 */
export function fromWire(wire: WireError): Error {
  const known = wire.code === undefined ? undefined : [wire.name, ...(wire.bases ?? [])].find((n) => revivers.has(n));
  if (known) return revivers.get(known)!(wire as WireError & { code: string });
  const error = new Error(wire.message);
  error.name = wire.name;
  if (wire.code !== undefined) (error as Error & { code?: string }).code = wire.code;
  return error;
}

/** How a task on a thread ends, as it crosses back: its value, or its error in the wire form. */
export type ThreadOutcome<T> = { ok: T } | { error: WireError };

/** The value of an outcome, or (thrown) the error it stood for. */
export function unwrap<T>(outcome: ThreadOutcome<T>): T {
  if ('ok' in outcome) return outcome.ok;
  throw fromWire(outcome.error);
}

import { OcelError } from './errors.js';

/**
 * JSON for OCEL files that may be damaged: the fast JSON.parse first, and
 * when it refuses, a forgiving reader that stops at the fault and returns what
 * it had, every object or array it could not finish listed in `incomplete`.
 * The caller keeps the complete entries and reports the fault with its line.
 */
export interface LooseJson {
  value: unknown;
  incomplete: WeakSet<object>;
  fault: { line: number; reason: string } | undefined;
}

/** Where the JSON breaks, thrown up through the parse to collect the partial value; caught in this file. */
class Fault extends OcelError {
  override name = 'OcelJsonFault';
  partial: unknown;
  constructor(
    readonly pos: number,
    reason: string,
  ) {
    super('ocel_malformed', reason);
  }
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;

export function parseLooseJson(text: string): LooseJson {
  try {
    return { value: JSON.parse(text), incomplete: new WeakSet(), fault: undefined };
  } catch {
    // fall through to the forgiving reader, which knows where and what
  }
  const incomplete = new WeakSet<object>();
  let pos = 0;
  const ws = () => {
    while (pos < text.length) {
      const c = text.charCodeAt(pos);
      if (c === 32 || c === 10 || c === 13 || c === 9) pos++;
      else break;
    }
  };
  const fail = (reason: string): never => {
    throw new Fault(pos, pos >= text.length ? 'the input ends early: the file looks truncated' : reason);
  };
  const string = (): string => {
    STRING.lastIndex = pos;
    const m = STRING.exec(text);
    if (!m) {
      if (text.indexOf('"', pos + 1) < 0) pos = text.length; // the string runs to the end: a cut file
      return fail('a malformed string');
    }
    pos = STRING.lastIndex;
    return JSON.parse(m[0]) as string;
  };
  const container = <T extends object>(made: T, close: string, item: (into: T) => void): T => {
    pos++;
    try {
      ws();
      if (text[pos] === close) {
        pos++;
        return made;
      }
      for (;;) {
        item(made);
        ws();
        if (text[pos] === ',') pos++;
        else if (text[pos] === close) {
          pos++;
          return made;
        } else fail(`expected ',' or '${close}', found ${JSON.stringify(text[pos])}`);
      }
    } catch (error) {
      if (error instanceof Fault) {
        incomplete.add(made);
        error.partial = made;
      }
      throw error;
    }
  };
  // A child's partial value is attached before the fault moves up.
  const child = (set: (v: unknown) => void) => {
    try {
      set(value());
    } catch (error) {
      if (error instanceof Fault && error.partial !== undefined) set(error.partial);
      throw error;
    }
  };
  const value = (): unknown => {
    ws();
    const c = text[pos];
    if (c === '{') {
      return container<Record<string, unknown>>({}, '}', (obj) => {
        ws();
        if (text[pos] !== '"') fail(`expected a key, found ${JSON.stringify(text[pos])}`);
        const key = string();
        ws();
        if (text[pos] !== ':') fail(`expected ':', found ${JSON.stringify(text[pos])}`);
        pos++;
        child((v) => (obj[key] = v));
      });
    }
    if (c === '[') return container<unknown[]>([], ']', (arr) => child((v) => arr.push(v)));
    if (c === '"') return string();
    for (const [word, v] of [['true', true], ['false', false], ['null', null]] as const) {
      if (text.startsWith(word, pos)) {
        pos += word.length;
        return v;
      }
    }
    NUMBER.lastIndex = pos;
    const m = NUMBER.exec(text);
    if (m) {
      pos = NUMBER.lastIndex;
      return Number(m[0]);
    }
    return fail(`unexpected ${JSON.stringify(c)}`);
  };
  const lineAt = (at: number) => text.slice(0, at).split('\n').length;
  try {
    const root = value();
    ws();
    return { value: root, incomplete, fault: { line: lineAt(pos), reason: 'text after the end of the JSON value' } };
  } catch (error) {
    if (!(error instanceof Fault)) throw error;
    const fault = { line: lineAt(error.pos), reason: error.message };
    if (error.partial === undefined || typeof error.partial !== 'object') {
      throw new OcelError('ocel_malformed', `JSON: ${fault.reason} (line ${fault.line})`);
    }
    return { value: error.partial, incomplete, fault };
  }
}

import { EngineError } from '../errors.js';
import type { VariantLog } from './log.js';
import type { ProcessTree } from './tree.js';

/**
 * A process tree is a regular expression with shuffle: sequence is
 * concatenation, choice is union, parallel is shuffle, loop(do, redo) is
 * do (redo do)*, tau is the empty word. Language membership then follows
 * Brzozowski derivatives over hash-consed expressions: the state after a
 * prefix is one expression, the derivative by the next activity is memoised,
 * and since variants share prefixes the whole variant set is one walk over
 * its prefix tree. Exact, with loops and interleavings, in time that grows
 * with variants and distinct model states, not with events.
 */
const EMPTY = 0;
const EPS = 1;
const enum Kind {
  Empty,
  Eps,
  Sym,
  Seq,
  Alt,
  Shuf,
  Star,
}

/** Bound on distinct expressions: a guard against a state-space blow-up, far above what mined trees need. */
const MAX_EXPRESSIONS = 2_000_000;
/** Activity ids stay below this; derivative memo keys are state * STRIDE + activity. */
const STRIDE = 1 << 21;

export class Language {
  private readonly kind: Kind[] = [Kind.Empty, Kind.Eps];
  private readonly kids: number[][] = [[], []];
  private readonly symbol: number[] = [-1, -1];
  private readonly nullable: boolean[] = [false, true];
  private readonly index = new Map<string, number>();
  private readonly derivs = new Map<number, number>();
  private readonly firsts: (number[] | undefined)[] = [];
  readonly root: number;

  /** `ids` maps activity labels to the small integers traces use; the tree's other labels get ids of their own. */
  constructor(tree: ProcessTree, private readonly ids: Map<string, number>) {
    this.root = this.compile(tree);
  }

  private make(kind: Kind, kids: number[], symbol = -1): number {
    const key = kind === Kind.Sym ? `s${symbol}` : `${kind}:${kids.join(',')}`;
    const found = this.index.get(key);
    if (found !== undefined) return found;
    const id = this.kind.length;
    if (id > MAX_EXPRESSIONS) throw new EngineError('invalid_argument', 'process tree language: too many states to check membership');
    this.kind.push(kind);
    this.kids.push(kids);
    this.symbol.push(symbol);
    const n = this.nullable;
    this.nullable.push(
      kind === Kind.Sym ? false : kind === Kind.Alt ? kids.some((k) => n[k]) : kind === Kind.Star ? true : kids.every((k) => n[k]),
    );
    this.index.set(key, id);
    return id;
  }

  private sym(a: number): number {
    return this.make(Kind.Sym, [], a);
  }

  private seq(parts: number[]): number {
    const flat: number[] = [];
    for (const p of parts) {
      if (p === EMPTY) return EMPTY;
      if (p === EPS) continue;
      if (this.kind[p] === Kind.Seq) flat.push(...this.kids[p]!);
      else flat.push(p);
    }
    if (flat.length === 0) return EPS;
    return flat.length === 1 ? flat[0]! : this.make(Kind.Seq, flat);
  }

  private alt(parts: number[]): number {
    const set = new Set<number>();
    for (const p of parts) {
      if (p === EMPTY) continue;
      if (this.kind[p] === Kind.Alt) for (const k of this.kids[p]!) set.add(k);
      else set.add(p);
    }
    if (set.size === 0) return EMPTY;
    const flat = [...set].sort((x, y) => x - y);
    return flat.length === 1 ? flat[0]! : this.make(Kind.Alt, flat);
  }

  private shuf(parts: number[]): number {
    const flat: number[] = [];
    for (const p of parts) {
      if (p === EMPTY) return EMPTY;
      if (p === EPS) continue;
      if (this.kind[p] === Kind.Shuf) flat.push(...this.kids[p]!);
      else flat.push(p);
    }
    if (flat.length === 0) return EPS;
    flat.sort((x, y) => x - y);
    return flat.length === 1 ? flat[0]! : this.make(Kind.Shuf, flat);
  }

  private star(r: number): number {
    if (r === EMPTY || r === EPS) return EPS;
    if (this.kind[r] === Kind.Star) return r;
    return this.make(Kind.Star, [r]);
  }

  private compile(t: ProcessTree): number {
    switch (t.kind) {
      case 'tau':
        return EPS;
      case 'activity': {
        let id = this.ids.get(t.label);
        if (id === undefined) this.ids.set(t.label, (id = this.ids.size));
        return this.sym(id);
      }
      case 'sequence':
        return this.seq(t.children.map((c) => this.compile(c)));
      case 'xor':
        return this.alt(t.children.map((c) => this.compile(c)));
      case 'parallel':
        return this.shuf(t.children.map((c) => this.compile(c)));
      case 'loop': {
        const [body, ...redo] = t.children.map((c) => this.compile(c));
        if (redo.length === 0) return body!;
        return this.seq([body!, this.star(this.seq([this.alt(redo), body!]))]);
      }
    }
  }

  accepts(state: number): boolean {
    return this.nullable[state]!;
  }

  /** The state after one more activity; EMPTY when the tree does not allow it. */
  step(e: number, a: number): number {
    if (e === EMPTY || e === EPS) return EMPTY;
    const key = e * STRIDE + a;
    const memo = this.derivs.get(key);
    if (memo !== undefined) return memo;
    const kids = this.kids[e]!;
    let d: number;
    switch (this.kind[e]) {
      case Kind.Sym:
        d = this.symbol[e] === a ? EPS : EMPTY;
        break;
      case Kind.Seq: {
        const head = kids[0]!;
        const tail = kids.length === 2 ? kids[1]! : this.make(Kind.Seq, kids.slice(1));
        d = this.seq([this.step(head, a), tail]);
        if (this.nullable[head]) d = this.alt([d, this.step(tail, a)]);
        break;
      }
      case Kind.Alt:
        d = this.alt(kids.map((k) => this.step(k, a)));
        break;
      case Kind.Shuf:
        d = this.alt(kids.map((k, i) => (i > 0 && kids[i - 1] === k ? EMPTY : this.shuf(kids.map((x, j) => (j === i ? this.step(k, a) : x))))));
        break;
      case Kind.Star:
        d = this.seq([this.step(kids[0]!, a), e]);
        break;
      default:
        d = EMPTY;
    }
    this.derivs.set(key, d);
    return d;
  }

  /** The activities the tree allows next in a state (those with a non-empty derivative), ascending. */
  next(e: number): number[] {
    const memo = this.firsts[e];
    if (memo) return memo;
    const out = new Set<number>();
    const kids = this.kids[e]!;
    switch (this.kind[e]) {
      case Kind.Sym:
        out.add(this.symbol[e]!);
        break;
      case Kind.Seq:
        for (const k of kids) {
          for (const a of this.next(k)) out.add(a);
          if (!this.nullable[k]) break;
        }
        break;
      case Kind.Alt:
      case Kind.Shuf:
      case Kind.Star:
        for (const k of kids) for (const a of this.next(k)) out.add(a);
        break;
      default:
        break;
    }
    const list = [...out].sort((x, y) => x - y);
    this.firsts[e] = list;
    return list;
  }
}

export interface Replay {
  /** Cases whose trace is in the tree's language. */
  acceptedCases: number;
  cases: number;
  /** Per variant of the log, in its order: accepted or not. */
  accepted: boolean[];
  /** Escaping-edges precision (ETC) of the tree, and of a flower model over the same activities. */
  precision: number;
  flowerPrecision: number;
}

/**
 * Replays every variant once along the prefix tree. Precision follows
 * Muñoz-Gama and Carmona's escaping edges as pm4py's token-based ETC counts
 * them: for every prefix the model can replay, weighted by the cases that
 * continue after it, the activities the model allows next minus those the log
 * shows next; precision = 1 - escaping / allowed. Unlike token replay, the
 * model's state here is exact (all activities reachable through silent steps).
 */
export function replayVariants(tree: ProcessTree, log: VariantLog, labels: readonly string[]): Replay {
  const ids = new Map(labels.map((l, i) => [l, i]));
  const lang = new Language(tree, ids);
  const { order, lcp, A } = walkOf(log);

  interface Prefix {
    state: number;
    count: number;
    distinctNext: number;
    matched: number;
  }
  let at = 0;
  let ee = 0;
  let atFlower = 0;
  let eeFlower = 0;
  const close = (p: Prefix) => {
    atFlower += p.count * A;
    eeFlower += p.count * (A - p.distinctNext);
    if (p.state === EMPTY) return;
    const allowed = lang.next(p.state).length;
    at += p.count * allowed;
    ee += p.count * (allowed - p.matched);
  };

  const pop = () => {
    const p = stack.pop()!;
    if (stack.length) stack[stack.length - 1]!.count += p.count;
    close(p);
  };

  const accepted = new Array<boolean>(log.traces.length).fill(false);
  let acceptedCases = 0;
  let cases = 0;
  let emptyCases = 0;
  const states = [lang.root];
  const stack: Prefix[] = [];
  for (let o = 0; o < order.length; o++) {
    const v = order[o]!;
    const t = log.traces[v]!;
    const n = log.counts[v]!;
    cases += n;
    const L = lcp[o]!;
    while (stack.length > L + 1) pop();
    states.length = L + 1;
    for (let d = L; d < t.length; d++) states.push(lang.step(states[d]!, t[d]!));
    // A trace's cases count for every prefix it passes; they are added at its deepest prefix
    // only and handed up to the parent when a prefix closes (pop), not walked per trace.
    for (let d = L; d < t.length; d++) {
      if (stack.length <= d) stack.push({ state: states[d]!, count: 0, distinctNext: 0, matched: 0 });
      const p = stack[d]!;
      p.distinctNext += 1;
      if (states[d + 1] !== EMPTY) p.matched += 1;
    }
    if (t.length > 0) stack[t.length - 1]!.count += n;
    if (t.length === 0) emptyCases += n;
    if (lang.accepts(states[t.length]!)) {
      accepted[v] = true;
      acceptedCases += n;
    }
  }
  if (stack.length === 0) stack.push({ state: lang.root, count: 0, distinctNext: 0, matched: 0 });
  stack[0]!.count += emptyCases;
  while (stack.length) pop();
  return {
    acceptedCases,
    cases,
    accepted,
    precision: at > 0 ? 1 - ee / at : 1,
    flowerPrecision: atFlower > 0 ? 1 - eeFlower / atFlower : 1,
  };
}

/** The log's variants in prefix-tree order and its alphabet size: the same for every tree replayed on one log, so computed once per log. */
const walks = new WeakMap<VariantLog, { order: number[]; lcp: Int32Array; A: number }>();
function walkOf(log: VariantLog): { order: number[]; lcp: Int32Array; A: number } {
  let w = walks.get(log);
  if (w) return w;
  const order = log.traces.map((_, i) => i).sort((x, y) => compareTraces(log.traces[x]!, log.traces[y]!));
  // Per position in that order, the length of the prefix shared with the trace before it.
  const lcp = new Int32Array(order.length);
  for (let o = 1; o < order.length; o++) {
    const t = log.traces[order[o]!]!;
    const prev = log.traces[order[o - 1]!]!;
    let L = 0;
    while (L < t.length && L < prev.length && t[L] === prev[L]) L++;
    lcp[o] = L;
  }
  let max = -1;
  for (const t of log.traces) for (const a of t) if (a > max) max = a;
  const seen = new Uint8Array(max + 1);
  let A = 0;
  for (const t of log.traces) {
    for (const a of t) {
      if (seen[a]) continue;
      seen[a] = 1;
      A++;
    }
  }
  walks.set(log, (w = { order, lcp, A }));
  return w;
}

function compareTraces(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

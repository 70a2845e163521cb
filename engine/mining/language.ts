import { EngineError } from '../errors.js';
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
/** The empty language (no trace) and the empty word, ids 0 and 1 of every Language. */
export const EMPTY = 0;
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

export class Language {
  private readonly kind: Kind[] = [Kind.Empty, Kind.Eps];
  private readonly kids: number[][] = [[], []];
  private readonly symbol: number[] = [-1, -1];
  private readonly nullable: boolean[] = [false, true];
  private readonly index = new Map<number, number[]>();
  /** Per state, the derivative by each activity (-1: not computed yet): a row per state, not a Map keyed by state x activity (keys past the small-integer range). */
  private readonly derivs: (number[] | undefined)[] = [];
  /** Activity ids stay below this: the labels of the log and of the tree. */
  private readonly width: number;
  private readonly firsts: (number[] | undefined)[] = [];
  /** Per state, the allowed next activities as a bit mask (only used with at most 32 labels). */
  private readonly masks: (number | undefined)[] = [];
  readonly root: number;

  /** `ids` maps activity labels to the small integers traces use; the tree's other labels get ids of their own. */
  constructor(tree: ProcessTree, private readonly ids: Map<string, number>) {
    this.root = this.compile(tree);
    this.width = ids.size;
  }

  private make(kind: Kind, kids: number[], symbol = -1): number {
    // Hash-consed by a numeric hash of kind, symbol and kids (checked in full): a string key per
    // call was most of the replay's garbage.
    let h = Math.imul(0x811c9dc5 ^ kind, 0x01000193);
    h = Math.imul(h ^ symbol, 0x01000193);
    for (let i = 0; i < kids.length; i++) h = Math.imul(h ^ kids[i]!, 0x01000193);
    const bucket = this.index.get(h);
    if (bucket !== undefined) {
      for (const e of bucket) {
        if (this.kind[e] !== kind || this.symbol[e] !== symbol) continue;
        const other = this.kids[e]!;
        if (other.length !== kids.length) continue;
        let i = 0;
        while (i < kids.length && other[i] === kids[i]) i++;
        if (i === kids.length) return e;
      }
    }
    const id = this.kind.length;
    if (id > MAX_EXPRESSIONS) throw new EngineError('invalid_argument', 'process tree language: too many states to check membership');
    this.kind.push(kind);
    this.kids.push(kids);
    this.symbol.push(symbol);
    const n = this.nullable;
    this.nullable.push(
      kind === Kind.Sym ? false : kind === Kind.Alt ? kids.some((k) => n[k]) : kind === Kind.Star ? true : kids.every((k) => n[k]),
    );
    if (bucket) bucket.push(id);
    else this.index.set(h, [id]);
    return id;
  }

  private sym(a: number): number {
    return this.make(Kind.Sym, [], a);
  }

  private seq(parts: number[]): number {
    const flat = this.product(Kind.Seq, parts);
    if (flat === undefined) return EMPTY;
    if (flat.length === 0) return EPS;
    return flat.length === 1 ? flat[0]! : this.make(Kind.Seq, flat);
  }

  /** The parts of a sequence or shuffle with nested ones of its kind inlined and ε dropped; undefined when one is ∅ (then so is the whole). */
  private product(kind: Kind, parts: number[]): number[] | undefined {
    const flat: number[] = [];
    for (const p of parts) {
      if (p === EMPTY) return undefined;
      if (p === EPS) continue;
      if (this.kind[p] === kind) flat.push(...this.kids[p]!);
      else flat.push(p);
    }
    return flat;
  }

  private alt(parts: number[]): number {
    // One part is itself (an alternative of one flattens back to the same expression).
    if (parts.length === 1) return parts[0]!;
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
    const flat = this.product(Kind.Shuf, parts);
    if (flat === undefined) return EMPTY;
    if (flat.length === 0) return EPS;
    flat.sort((x, y) => x - y);
    return flat.length === 1 ? flat[0]! : this.make(Kind.Shuf, flat);
  }

  /**
   * The shuffle of `kids` (sorted, flat) with child i replaced by d: the same as shuf() of the
   * replaced list, but a plain d (no ε, no shuffle to inline) is moved to its sorted place in one
   * pass instead of sorting the whole list again.
   */
  private moved(kids: readonly number[], i: number, d: number): number {
    if (d === EPS || this.kind[d] === Kind.Shuf) {
      const list = kids.slice();
      list[i] = d;
      return this.shuf(list);
    }
    const out: number[] = [];
    let placed = false;
    for (let j = 0; j < kids.length; j++) {
      if (j === i) continue;
      if (!placed && d <= kids[j]!) {
        out.push(d);
        placed = true;
      }
      out.push(kids[j]!);
    }
    if (!placed) out.push(d);
    return out.length === 1 ? out[0]! : this.make(Kind.Shuf, out);
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
    // An id past the tree's and the log's labels is no symbol of the tree.
    if (e === EMPTY || e === EPS || a >= this.width) return EMPTY;
    let row = this.derivs[e];
    // A plain array: typed arrays past 64 bytes get a buffer outside the heap, slow to make for every state.
    if (row === undefined) this.derivs[e] = row = new Array<number>(this.width).fill(-1);
    const memo = row[a]!;
    if (memo >= 0) return memo;
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
      case Kind.Shuf: {
        // One child steps, the others stay; a child that cannot take `a` (most) adds nothing, so its
        // shuffle is not built. Steps and shuffles are made in the same order either way.
        // With at most 32 labels the children's allowed masks say which can take `a` without a call.
        const bit = this.width <= 32 ? 1 << a : 0;
        const parts: number[] = [];
        for (let i = 0; i < kids.length; i++) {
          if (bit !== 0 && (this.mask(kids[i]!) & bit) === 0) continue;
          const di = i > 0 && kids[i - 1] === kids[i] ? EMPTY : this.step(kids[i]!, a);
          if (di === EMPTY) continue;
          parts.push(this.moved(kids, i, di));
        }
        d = this.alt(parts);
        break;
      }
      case Kind.Star:
        d = this.seq([this.step(kids[0]!, a), e]);
        break;
      default:
        d = EMPTY;
    }
    row[a] = d;
    return d;
  }

  /**
   * How many activities the tree allows next in a state. With at most 32 labels (most logs) the
   * allowed set is a bit mask per state, OR-ed from its parts: the replay asks this of every state,
   * and building a sorted list per state was a third of its time on logs of many variants.
   */
  allowedCount(e: number): number {
    if (this.width > 32) return this.next(e).length;
    let x = this.mask(e) >>> 0;
    x -= (x >>> 1) & 0x55555555;
    x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
    return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
  }

  private mask(e: number): number {
    const memo = this.masks[e];
    if (memo !== undefined) return memo;
    const kids = this.kids[e]!;
    let m = 0;
    switch (this.kind[e]) {
      case Kind.Sym:
        m = 1 << this.symbol[e]!;
        break;
      case Kind.Seq:
        for (const k of kids) {
          m |= this.mask(k);
          if (!this.nullable[k]) break;
        }
        break;
      case Kind.Alt:
      case Kind.Shuf:
      case Kind.Star:
        for (const k of kids) m |= this.mask(k);
        break;
      default:
        break;
    }
    this.masks[e] = m;
    return m;
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

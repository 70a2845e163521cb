import { ProfileKeys } from '../profile-fold.js';
import { pairKey, variantKey } from '../tally.js';

/**
 * A path from the start in the book's trie of variants: a fold steps down it
 * one activity at a time, so the variant counter of a case's path so far is
 * found without joining the path into its key on every batch.
 */
export interface VariantNode {
  next: Map<string, VariantNode> | undefined;
  /** The variant counter's id, once asked for. */
  id: number | undefined;
  /** The node one step up (none at the root), the activity of the step to here, and the node's number in its book. */
  readonly parent: VariantNode | undefined;
  readonly activity: string;
  readonly index: number;
}

/**
 * Counters are numbered: a KeyBook gives each (kind, k1, k2, bucket) a small
 * integer id, so a batch's delta is a typed array (see Counters) rather than
 * a map of long string keys. A fold bumps a dozen counters an event; string
 * keys cost more than all the counting (a Map update over long keys is ~100 ns,
 * an array update ~5 ns). The fold's hot keys hang off per-edge and
 * per-activity entries, found with one or two lookups.
 *
 * Ids mean something only within their book. A store keeps one book and
 * starts a fresh one (dropping its cached folds, whose `seen` sets hold ids)
 * when it has grown past a bound between batches.
 */
export class KeyBook {
  readonly kinds: string[] = [];
  readonly k1s: string[] = [];
  readonly k2s: string[] = [];
  readonly buckets: number[] = [];
  private readonly prefixes: string[] = [];
  private readonly index = new Map<string, Map<string, Map<string, Map<number, number>>>>();
  private readonly edges = new Map<string, Map<string, EdgeKeys>>();
  private readonly activities = new Map<string, ActivityKeys>();
  private readonly durations = new Map<number, number>();
  private readonly pairs = new Map<string, Map<string, string>>();
  /** Pair keys numbered (see pairId), with each key's first part: a fold packs its attributes as these numbers. */
  private readonly pairIds = new Map<string, number>();
  readonly pairNames: string[] = [];
  readonly pairKeys: string[] = [];
  private readonly resources = new Map<string, number>();
  readonly resourceNames: string[] = [];
  readonly variantRoot: VariantNode = { next: undefined, id: undefined, parent: undefined, activity: '', index: 0 };
  /** The trie's nodes by number. */
  readonly variantNodes: VariantNode[] = [this.variantRoot];
  readonly cases = this.id('cases', '', '', 0);
  readonly events = this.id('events', '', '', 0);
  /** The log profile's counters (engine/profile-fold.ts). */
  readonly profile = new ProfileKeys(this);

  get size(): number {
    return this.kinds.length;
  }

  /** The id of any counter (the fold's hot ones are faster through edge, activity and duration). */
  id(kind: string, k1: string, k2: string, bucket: number): number {
    let byK1 = this.index.get(kind);
    if (!byK1) this.index.set(kind, (byK1 = new Map()));
    let byK2 = byK1.get(k1);
    if (!byK2) byK1.set(k1, (byK2 = new Map()));
    let byBucket = byK2.get(k2);
    if (!byBucket) byK2.set(k2, (byBucket = new Map()));
    let id = byBucket.get(bucket);
    if (id === undefined) {
      id = this.kinds.length;
      this.kinds.push(kind);
      this.k1s.push(k1);
      this.k2s.push(k2);
      this.buckets.push(bucket);
      byBucket.set(bucket, id);
    }
    return id;
  }

  /** `["kind","k1","k2",bucket` of an id: a counter row's JSON up to its number. */
  jsonPrefix(id: number): string {
    return (this.prefixes[id] ??= JSON.stringify([this.kinds[id], this.k1s[id], this.k2s[id], this.buckets[id]]).slice(0, -1));
  }

  edge(from: string, to: string): EdgeKeys {
    let byTo = this.edges.get(from);
    if (byTo === undefined) this.edges.set(from, (byTo = new Map()));
    let keys = byTo.get(to);
    if (keys === undefined) byTo.set(to, (keys = new EdgeKeys(this, from, to)));
    return keys;
  }

  activity(name: string): ActivityKeys {
    let keys = this.activities.get(name);
    if (keys === undefined) this.activities.set(name, (keys = new ActivityKeys(this, name)));
    return keys;
  }

  variantStep(node: VariantNode, activity: string): VariantNode {
    const next = (node.next ??= new Map());
    let child = next.get(activity);
    if (child === undefined) {
      child = { next: undefined, id: undefined, parent: node, activity, index: this.variantNodes.length };
      next.set(activity, child);
      this.variantNodes.push(child);
    }
    return child;
  }

  /** The variant counter of a trie node; `path` must be the node's path. */
  variantId(node: VariantNode, path: readonly string[]): number {
    return (node.id ??= this.id('variant', variantKey(path), '', 0));
  }

  /** pairKey(a, b), one string for all its uses (folds keep these per open case). */
  pair(a: string, b: string): string {
    let byB = this.pairs.get(a);
    if (byB === undefined) this.pairs.set(a, (byB = new Map()));
    let key = byB.get(b);
    if (key === undefined) {
      byB.set(b, (key = pairKey(a, b)));
      this.pairIds.set(key, this.pairKeys.length);
      this.pairKeys.push(key);
      this.pairNames.push(a);
    }
    return key;
  }

  /** The number of a key `pair` made (pairKeys and pairNames hold it and its first part). */
  pairId(key: string): number {
    return this.pairIds.get(key)!;
  }

  /** One string per resource name, for the same reason. */
  resourceName(name: string): string {
    return this.resourceNames[this.resourceId(name)]!;
  }

  /** The resource's number (resourceNames holds its name). */
  resourceId(name: string): number {
    let id = this.resources.get(name);
    if (id === undefined) {
      this.resources.set(name, (id = this.resourceNames.length));
      this.resourceNames.push(name);
    }
    return id;
  }

  duration(bucket: number): number {
    let id = this.durations.get(bucket);
    if (id === undefined) this.durations.set(bucket, (id = this.id('duration', '', '', bucket)));
    return id;
  }
}

export class EdgeKeys {
  readonly events: number;
  readonly cases: number;
  private readonly waits = new Map<number, number>();
  /** By fold, then by pairKey(attribute, value) (pairKey('', '') for the count over all cases). */
  private readonly choices: Map<string, number>[] = [];
  private readonly choicePair: string;

  constructor(
    private readonly book: KeyBook,
    readonly from: string,
    readonly to: string,
  ) {
    this.events = book.id('edge.events', from, to, 0);
    this.cases = book.id('edge.cases', from, to, 0);
    this.choicePair = pairKey(from, to);
  }

  wait(bucket: number): number {
    let id = this.waits.get(bucket);
    if (id === undefined) this.waits.set(bucket, (id = this.book.id('edge.wait', this.from, this.to, bucket)));
    return id;
  }

  /** The choice counter of this step taken at a first visit of `from`, in `fold`, for one attribute value (pairKey(attribute, value)). */
  choice(fold: number, attributeValue: string): number {
    const byValue = (this.choices[fold] ??= new Map());
    let id = byValue.get(attributeValue);
    if (id === undefined) byValue.set(attributeValue, (id = this.book.id('choice', this.choicePair, attributeValue, fold)));
    return id;
  }
}

export class ActivityKeys {
  readonly cases: number;
  readonly repeating: number;
  private readonly lasts = new Map<number, number>();
  private readonly begun = new Map<number, number>();
  private readonly resources = new Map<string, { events: number; cases: number }>();
  private readonly shared = new Map<string, number>();

  constructor(
    private readonly book: KeyBook,
    readonly name: string,
  ) {
    this.cases = book.id('activity.cases', name, '', 0);
    this.repeating = book.id('activity.repeating', name, '', 0);
  }

  /** Cases whose last event is this activity, in the given hour since the epoch. */
  last(hour: number): number {
    let id = this.lasts.get(hour);
    if (id === undefined) this.lasts.set(hour, (id = this.book.id('last', this.name, '', hour)));
    return id;
  }

  /** Cases whose last event is this activity and whose first event lies in the given hour since the epoch. */
  began(hour: number): number {
    let id = this.begun.get(hour);
    if (id === undefined) this.begun.set(hour, (id = this.book.id('began', this.name, '', hour)));
    return id;
  }

  /** Cases in which one resource did both this activity and `other` (the pair is unordered). */
  sameResource(other: string): number {
    let id = this.shared.get(other);
    if (id === undefined) {
      id = other < this.name ? this.book.id('same_resource', other, this.name, 0) : this.book.id('same_resource', this.name, other, 0);
      this.shared.set(other, id);
    }
    return id;
  }

  resource(resource: string): { events: number; cases: number } {
    let ids = this.resources.get(resource);
    if (ids === undefined) {
      ids = { events: this.book.id('resource.events', this.name, resource, 0), cases: this.book.id('resource.cases', this.name, resource, 0) };
      this.resources.set(resource, ids);
    }
    return ids;
  }
}

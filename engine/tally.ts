import { addToSketch, type Sketch } from './sketch.js';

/**
 * The summable part of a project's state: every number here is a sum of
 * per-case contributions. A batch's change is the tally of its touched cases
 * after, minus their tally before; the stored state is the sum of all cases.
 *
 * Start and end are the empty string: an activity name is never empty, the
 * start only appears as an edge's `from` and the end only as its `to`.
 */
export const START = '';
export const END = '';

export interface ActivityTally {
  events: number;
  cases: number;
  casesRepeating: number;
  /** Time from this activity to the next event of the same case. */
  timeToNext: Sketch;
}

export interface EdgeTally {
  /** Directly-follows occurrences. */
  events: number;
  /** Cases with at least one occurrence. */
  cases: number;
  /** Waiting time between the two events (real activities only). */
  wait: Sketch;
}

export interface PairTally {
  events: number;
  cases: number;
}

export interface Tally {
  cases: number;
  events: number;
  activities: Map<string, ActivityTally>;
  /** Keyed by edgeKey(from, to). */
  edges: Map<string, EdgeTally>;
  /** Keyed by variantKey(path). */
  variants: Map<string, number>;
  caseDuration: Sketch;
  /** Keyed by pairKey(activity, resource). */
  resources: Map<string, PairTally>;
  /** Keyed by pairKey(activity, object type). */
  objectTypes: Map<string, PairTally>;
  /**
   * The interpreter's counters (engine/reading). Keyed by choiceKey: cases whose
   * first visit of `at` is directly followed by `next` (END when the case stops
   * there), in held-out fold `fold`, overall (attribute '') and per bucketed
   * value of each attribute known at that point (see choiceValue).
   */
  choices: Map<string, number>;
  /** Keyed by pairKey(a, b) with a < b: cases where one resource did both a and b. */
  sameResource: Map<string, number>;
  /** Keyed by pairKey(last activity, hour of the last event since the epoch): cases by where and when they stop. */
  lastEvents: Map<string, number>;
  /** Keyed by pairKey(last activity, hour of the FIRST event since the epoch): when the cases that stop at each activity began (engine/reading/window.ts). */
  firstEvents: Map<string, number>;
  /** Keyed by roleKey(activity, attribute, value): events and cases per value of a role, group or team attribute (see isRoleAttribute). */
  roleValues: Map<string, PairTally>;
  /** The log profile's counters (engine/reading/profile.ts reads them): what the data is, before what it says. Keyed by profileKey(kind, a, b). */
  profile: Map<string, number>;
  /**
   * The log profile's service times, by activity: per event carrying a `start_timestamp` attribute
   * (ISO text or epoch milliseconds) not after its time, the time from that start to the event (two-timestamp
   * logs: one event per execution, with its start). Kept as sketches, like every other duration.
   */
  serviceTime: Map<string, Sketch>;
}

const SEP = '\u0000';
export const edgeKey = (from: string, to: string): string => from + SEP + to;
export const pairKey = (a: string, b: string): string => a + SEP + b;
export function splitKey(key: string): [string, string] {
  const i = key.indexOf(SEP);
  return [key.slice(0, i), key.slice(i + 1)];
}
export const variantKey = (path: readonly string[]): string => JSON.stringify(path);
export const variantPath = (key: string): string[] => JSON.parse(key) as string[];

export function emptyTally(): Tally {
  return {
    cases: 0,
    events: 0,
    activities: new Map(),
    edges: new Map(),
    variants: new Map(),
    caseDuration: new Map(),
    resources: new Map(),
    objectTypes: new Map(),
    choices: new Map(),
    sameResource: new Map(),
    lastEvents: new Map(),
    firstEvents: new Map(),
    roleValues: new Map(),
    profile: new Map(),
    serviceTime: new Map(),
  };
}

export const roleKey = (activity: string, attribute: string, value: string): string => activity + SEP + attribute + SEP + value;
export function splitRoleKey(key: string): { activity: string; attribute: string; value: string } {
  const [activity = '', attribute = '', value = ''] = key.split(SEP);
  return { activity, attribute, value };
}

/**
 * The log profile's kinds (Tally.profile; the names are the reading's contract). Per event: `tod` (a: the
 * minute of the UTC day of its time, '0'..'1439'), `grain` (a: its time's resolution, see TimeGrain),
 * `lifecycle` (a: its `lifecycle:transition` value, trimmed, lower-cased, cut to 40 characters; none when
 * that leaves nothing). Once per case, per attribute the fold follows (those of the choice counters, see
 * MAX_CHOICE_ATTRIBUTES; engine/profile-fold.ts): `present`, `atFirst` (on the first event),
 * `changed` (its counted value, choiceValue, differs between two events), `future` (a text value of it
 * reads as an ISO date-time after its event's time). At the case's ending, per followed attribute with a
 * counted value: `first` (a: pairKey(attribute, its counted value on the first event), b: the last
 * activity) and `final` (a: pairKey(attribute, the last counted value)). Service times are
 * Tally.serviceTime, sketches rather than keys.
 */
export type ProfileKind = 'tod' | 'grain' | 'lifecycle' | 'present' | 'atFirst' | 'changed' | 'future' | 'first' | 'final';
export const PROFILE_KINDS: readonly ProfileKind[] = ['tod', 'grain', 'lifecycle', 'present', 'atFirst', 'changed', 'future', 'first', 'final'];
/** A time's resolution: 'ms' (it has milliseconds), 's' (a whole second, not a whole minute), 'min' (a whole minute, not a whole hour), 'h' (a whole hour). */
export type TimeGrain = 'ms' | 's' | 'min' | 'h';

/** The key of a profile counter: b is '' for every kind but `first`; only a may hold the separator (a pairKey). */
export const profileKey = (kind: ProfileKind, a: string, b = ''): string => kind + SEP + a + SEP + b;
export function splitProfileKey(key: string): { kind: ProfileKind; a: string; b: string } {
  const i = key.indexOf(SEP);
  const j = key.lastIndexOf(SEP);
  return { kind: key.slice(0, i) as ProfileKind, a: key.slice(i + 1, j), b: key.slice(j + 1) };
}

const ROLE_ATTRIBUTE = /^(org:)?(role|group|team)$/i;
const roleNames = new Map<string, boolean>();
/** Attributes that name who performs an event as a role, group or team (XES org:role, org:group; CSV role, group, team columns). */
export function isRoleAttribute(name: string): boolean {
  let yes = roleNames.get(name);
  if (yes === undefined) {
    yes = ROLE_ATTRIBUTE.test(name);
    if (roleNames.size < 10_000) roleNames.set(name, yes);
  }
  return yes;
}

/** The counted value of a role attribute, or undefined (empty, boolean or overlong values name no role). */
export function roleValue(v: string | number | boolean): string | undefined {
  if (typeof v === 'boolean') return undefined;
  const s = String(v).trim();
  return s.length === 0 || s.length > 100 ? undefined : s;
}

/** Held-out folds of the decision rule learner: a case's fold is a hash of its id. */
export const FOLDS = 5;
/**
 * At most this many attribute names are followed per case (the first met, in case order, whatever their
 * values; '' never is one): a bound on the choice and profile counters' size for pathological input, far
 * above the attributes real logs carry.
 */
export const MAX_CHOICE_ATTRIBUTES = 100;

/** 32-bit FNV-1a of a string's UTF-16 code units: a small hash that is the same on every machine. */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** The case's held-out fold, by its id's FNV-1a: stable across machines and arrival orders. */
export function caseFold(caseId: string): number {
  return fnv1a(caseId) % FOLDS;
}

export const choiceKey = (at: string, next: string, attribute: string, value: string, fold: number): string =>
  [at, next, attribute, value, String(fold)].join(SEP);
export function splitChoiceKey(key: string): { at: string; next: string; attribute: string; value: string; fold: number } {
  const [at = '', next = '', attribute = '', value = '', fold = '0'] = key.split(SEP);
  return { at, next, attribute, value, fold: Number(fold) };
}

const BIN_STEPS = [1, 2, 5, 10];
/** Bins and their counted labels by slot (exponent, step, sign): a few thousand at most, each computed once. */
const binValues = new Map<number, number>();
const binLabels = new Map<number, string>();

/** The slot of a non-zero finite number's bin. */
function binSlot(v: number): number {
  const a = Math.abs(v);
  let e = Math.floor(Math.log10(a));
  if (10 ** e > a) e -= 1;
  if (10 ** (e + 1) <= a) e += 1;
  const m = a / 10 ** e;
  const i = m >= 5 ? 2 : m >= 2 ? 1 : 0;
  return ((e + 400) * 3 + i) * 2 + (v > 0 ? 0 : 1);
}

/** Lower bound of a number's bin on the 1-2-5 log scale (…, 1, 2, 5, 10, 20, …); negatives mirror it. */
export function numberBin(v: number): number {
  if (v === 0 || !Number.isFinite(v)) return 0;
  const slot = binSlot(v);
  let bin = binValues.get(slot);
  if (bin === undefined) {
    const negative = slot % 2;
    const i = Math.floor(slot / 2) % 3;
    const e = Math.floor(slot / 6) - 400;
    // A negative value's bin is [-(upper), -(lower)), so its lower bound is minus the next step.
    bin = negative ? -Number((BIN_STEPS[i + 1]! * 10 ** e).toPrecision(12)) : Number((BIN_STEPS[i]! * 10 ** e).toPrecision(12));
    binValues.set(slot, bin);
  }
  return bin;
}

function numberLabel(v: number): string {
  if (v === 0 || !Number.isFinite(v)) return 'n:0';
  const slot = binSlot(v);
  let label = binLabels.get(slot);
  if (label === undefined) binLabels.set(slot, (label = `n:${numberBin(v)}`));
  return label;
}

/** Counted labels of recent string values; cleared when full, as its only purpose is speed. */
const stringLabels = new Map<string, string | null>();
const STRING_LABELS_MAX = 50_000;

/**
 * The counted form of an attribute value, or undefined when it is not worth
 * counting: numbers (and decimal numbers written as text) by their 1-2-5
 * bin, booleans as they are, strings of up to 40 characters with at most three digits (longer ones and codes are ids,
 * dates or free text, whose many values no rule can learn from).
 */
export function choiceValue(v: string | number | boolean): string | undefined {
  if (typeof v === 'boolean') return v ? 'b:true' : 'b:false';
  if (typeof v === 'number') return numberLabel(v);
  if (v.length === 0 || v.length > 40) return undefined;
  let label = stringLabels.get(v);
  if (label === undefined) {
    if (stringLabels.size >= STRING_LABELS_MAX) stringLabels.clear();
    stringLabels.set(v, (label = stringLabel(v)));
  }
  return label ?? undefined;
}

/**
 * The value of an attribute on a case's first event as the profile's `first` counters count it: its counted value
 * (choiceValue), or, for a case attribute whose text is an identifier (digits, not a time), the text itself as
 * `i:` — offers sharing an application id, visits sharing a patient's (engine/reading/groupings.ts). Only the
 * first-event counters take these, one key per value, never the choice counters.
 */
export function firstValue(name: string, v: string | number | boolean): string | undefined {
  const counted = choiceValue(v);
  if (counted !== undefined || typeof v !== 'string' || !name.startsWith('case:')) return counted;
  return v.length > 0 && v.length <= 40 && !v.includes(':') ? `i:${v}` : undefined;
}

function stringLabel(v: string): string | null {
  // Files often carry numbers as text (XES strings, CSV cells): count them as numbers.
  if (/^-?\d+(\.\d+)?$/.test(v)) return numberLabel(Number(v));
  let digits = 0;
  for (let i = 0; i < v.length; i++) if (v.charCodeAt(i) >= 48 && v.charCodeAt(i) <= 57) digits++;
  return digits > 3 ? null : `s:${v}`;
}

function addSketch(into: Sketch, from: Sketch, sign: number): void {
  for (const [bucket, count] of from) addToSketch(into, bucket, sign * count);
}

function addPairs(into: Map<string, PairTally>, from: Map<string, PairTally>, sign: number): void {
  for (const [key, p] of from) {
    const t = into.get(key) ?? { events: 0, cases: 0 };
    t.events += sign * p.events;
    t.cases += sign * p.cases;
    if (t.events === 0 && t.cases === 0) into.delete(key);
    else into.set(key, t);
  }
}

/** into += sign * from. Entries that fall to zero are removed, so equal sums compare equal. */
export function addTally(into: Tally, from: Tally, sign: 1 | -1 = 1): Tally {
  into.cases += sign * from.cases;
  into.events += sign * from.events;
  for (const [name, a] of from.activities) {
    const t = into.activities.get(name) ?? { events: 0, cases: 0, casesRepeating: 0, timeToNext: new Map() };
    t.events += sign * a.events;
    t.cases += sign * a.cases;
    t.casesRepeating += sign * a.casesRepeating;
    addSketch(t.timeToNext, a.timeToNext, sign);
    if (t.events === 0 && t.cases === 0 && t.casesRepeating === 0 && t.timeToNext.size === 0) into.activities.delete(name);
    else into.activities.set(name, t);
  }
  for (const [key, e] of from.edges) {
    const t = into.edges.get(key) ?? { events: 0, cases: 0, wait: new Map() };
    t.events += sign * e.events;
    t.cases += sign * e.cases;
    addSketch(t.wait, e.wait, sign);
    if (t.events === 0 && t.cases === 0 && t.wait.size === 0) into.edges.delete(key);
    else into.edges.set(key, t);
  }
  for (const [key, n] of from.variants) {
    const next = (into.variants.get(key) ?? 0) + sign * n;
    if (next === 0) into.variants.delete(key);
    else into.variants.set(key, next);
  }
  addSketch(into.caseDuration, from.caseDuration, sign);
  addPairs(into.resources, from.resources, sign);
  addPairs(into.objectTypes, from.objectTypes, sign);
  addCounts(into.choices, from.choices, sign);
  addCounts(into.sameResource, from.sameResource, sign);
  addCounts(into.lastEvents, from.lastEvents, sign);
  addCounts(into.firstEvents, from.firstEvents, sign);
  addPairs(into.roleValues, from.roleValues, sign);
  addCounts(into.profile, from.profile, sign);
  for (const [activity, s] of from.serviceTime) {
    const t = into.serviceTime.get(activity) ?? new Map<number, number>();
    addSketch(t, s, sign);
    if (t.size === 0) into.serviceTime.delete(activity);
    else into.serviceTime.set(activity, t);
  }
  return into;
}

function addCounts(into: Map<string, number>, from: Map<string, number>, sign: number): void {
  for (const [key, n] of from) {
    const next = (into.get(key) ?? 0) + sign * n;
    if (next === 0) into.delete(key);
    else into.set(key, next);
  }
}

/** A plain, key-sorted form for comparing tallies in tests and printing them. */
export function tallyToJson(t: Tally): unknown {
  const sk = (s: Sketch) => [...s.entries()].sort((a, b) => a[0] - b[0]);
  const sorted = <V, R>(m: Map<string, V>, f: (v: V) => R) =>
    [...m.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([k, v]) => [k, f(v)]);
  return {
    cases: t.cases,
    events: t.events,
    activities: sorted(t.activities, (a) => ({ ...a, timeToNext: sk(a.timeToNext) })),
    edges: sorted(t.edges, (e) => ({ ...e, wait: sk(e.wait) })),
    variants: sorted(t.variants, (n) => n),
    caseDuration: sk(t.caseDuration),
    resources: sorted(t.resources, (p) => p),
    objectTypes: sorted(t.objectTypes, (p) => p),
    choices: sorted(t.choices, (n) => n),
    sameResource: sorted(t.sameResource, (n) => n),
    lastEvents: sorted(t.lastEvents, (n) => n),
    firstEvents: sorted(t.firstEvents, (n) => n),
    roleValues: sorted(t.roleValues, (p) => p),
    profile: sorted(t.profile, (n) => n),
    serviceTime: sorted(t.serviceTime, sk),
  };
}

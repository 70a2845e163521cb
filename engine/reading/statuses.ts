import { cmp } from '../event.js';
import { pct, q, ratio, type Facts } from './facts.js';
import { nameVerdict } from './words.js';

/**
 * Outcome statuses (issue 31). Systems that record a case's state as events (an application accepted, denied or
 * cancelled) write the status once, and then go on logging the work still open (a work item closed, an offer
 * withdrawn): the case's last event is trailing work, not its outcome. Such a set shows in the variants alone,
 * whatever its names:
 * - each member is done at most once in a case and never with another member (a noise share allowed);
 * - together the members are reached by most cases not still recent;
 * - each comes late: in most of its cases at most LATE_NEW activities the case had not done before follow it
 *   (closing a work item begun earlier is no new step);
 * - no new step follows every member in most of its cases: that is the process going on after alternative routes
 *   (two ways of shipping, then one delivery), not work trailing an outcome.
 * Only where a share of the set's cases does go on after the status (else the last event already tells it) is the
 * outcome read from the status reached. All counted from the variants, which the tally keeps whole.
 */

/** A member is done twice, or with another member, in at most this share of its cases. */
export const STATUS_NOISE = 0.01;
/** Each member is reached by at least this share of all cases. */
export const STATUS_MIN_SHARE = 0.01;
/** The members together are reached by at least this share of the cases not recent at their last step. */
export const STATUS_REACH = 0.8;
/** Late: in at least half of a member's cases at most this many activities new to the case follow it. */
export const LATE_NEW = 2;
/** A new step following every member in at least this share of its cases is the process going on. */
const COMMON_CONTINUATION = 0.5;
/** The set changes the reading only where at least this share of its cases end at a step that also ends cases of another status. */
export const MIXED_SHARE = 0.1;
/** A last step mixes statuses when the second most of its cases reached another status (at least this share of them). */
const MIX = 0.05;
/** Two activities done in the same cases (each in this share of the other's) record one status twice. */
const TWIN = 0.99;
/** Candidates looked at, by cases (a bound on the pairwise checks). */
const MAX_CANDIDATES = 40;

export interface StatusSet {
  /** The members, most reached first. */
  members: string[];
  /** A member's verdict: from its name, or from the name of an activity done in exactly its cases (its twin). */
  verdict: Map<string, 'success' | 'failure' | undefined>;
  /** The twin that lent a member its verdict. */
  twinOf: Map<string, string>;
  /** Cases per member reached (a case reaching two, noise, counts for the one it reached last). */
  reached: Map<string, number>;
  /** Cases reaching any member. */
  reach: number;
  /** Cases reaching no member, by their last activity. */
  noneStops: Map<string, number>;
  /** Cases doing at least one step after the status they reached. */
  trailing: number;
  /** Of those, the cases whose last step also ends cases of another status (at least 5 % of them). */
  mixed: number;
  /** What the set is and why, for the outcomes assumption. */
  statement: string;
}

/** Where activity id k last is in a variant's path (-1: not in it). */
function lastIndex(ids: Int32Array, k: number): number {
  for (let i = ids.length - 1; i >= 0; i--) if (ids[i] === k) return i;
  return -1;
}

/**
 * The outcome status set of the log, or undefined. `recentTotal`: cases whose last event is recent where they
 * stopped (they may still reach a status).
 */
export function readStatusSet(f: Facts, recentTotal: number): StatusSet | undefined {
  const n = f.activities.length;
  if (f.cases < 20 || n < 3) return undefined;
  const cases = new Float64Array(n);
  const twice = new Float64Array(n);
  const late = new Float64Array(n);
  const seen = new Int32Array(n).fill(-1);
  f.variants.forEach((v, vi) => {
    const { ids, distinct, count } = v;
    // Activities done more than once in this variant.
    for (let i = 0; i < ids.length; i++) {
      const k = ids[i]!;
      if (k < 0) continue;
      if (seen[k] === vi) seen[k] = -2 - vi;
      else if (seen[k] !== -2 - vi) seen[k] = vi;
    }
    // distinct is in first-occurrence order: the activities new to the case after k are those ranked after it.
    for (let r = 0; r < distinct.length; r++) {
      const k = distinct[r]!;
      cases[k]! += count;
      if (seen[k] === -2 - vi) {
        twice[k]! += count;
        continue;
      }
      const fresh = distinct.length - 1 - r;
      if (fresh <= LATE_NEW) late[k]! += count;
    }
  });
  const candidates: number[] = [];
  for (let k = 0; k < n; k++) {
    const c = cases[k]!;
    if (c < Math.max(2, STATUS_MIN_SHARE * f.cases) || c >= 0.99 * f.cases) continue;
    if (twice[k]! > STATUS_NOISE * c || late[k]! < 0.5 * (c - twice[k]!)) continue;
    candidates.push(k);
  }
  candidates.sort((a, b) => cases[b]! - cases[a]! || cmp(f.activities[a]!, f.activities[b]!));
  candidates.length = Math.min(candidates.length, MAX_CANDIDATES);
  // A candidate that another one precedes in most of its cases is work after that status (a closing call, the
  // offer's own status written a second later), not a status: the status is written first.
  // Co-occurrence and first-occurrence order among the candidates, in one pass over the variants (the pairwise
  // order look-ups cost a pass over the variants holding an activity each, too much on 50,000 variants).
  const c = candidates.length;
  const slot = new Int32Array(n).fill(-1);
  candidates.forEach((k, i) => (slot[k] = i));
  const both = new Float64Array(c * c);
  const before = new Float64Array(c * c);
  const present: number[] = [];
  for (const v of f.variants) {
    present.length = 0;
    for (const k of v.distinct) if (slot[k]! >= 0) present.push(slot[k]!);
    for (let i = 0; i < present.length; i++)
      for (let j = i + 1; j < present.length; j++) {
        const a = present[i]!;
        const b = present[j]!;
        both[a * c + b]! += v.count;
        both[b * c + a]! += v.count;
        before[a * c + b]! += v.count;
      }
  }
  const follows_ = new Map<number, number>();
  candidates.forEach((x, xi) => {
    const yi = candidates.findIndex((_, yi) => yi !== xi && before[yi * c + xi]! > 0.5 * cases[x]!);
    if (yi >= 0) follows_.set(x, candidates[yi]!);
  });
  const chosen: number[] = [];
  for (const k of candidates) {
    if (follows_.has(k)) continue;
    const apart = chosen.every((m) => both[slot[k]! * c + slot[m]!]! <= STATUS_NOISE * Math.min(cases[k]!, cases[m]!));
    if (apart) chosen.push(k);
  }
  if (chosen.length < 2) return undefined;

  // Per case: the member reached last, what follows it, and the new steps after each member.
  const isMember = new Int32Array(n).fill(-1);
  chosen.forEach((k, i) => (isMember[k] = i));
  const reachedBy = new Float64Array(chosen.length);
  const noneStops = new Map<string, number>();
  const follows = chosen.map(() => new Float64Array(n));
  let trailing = 0;
  // Per last step, the cases of each status ending there.
  const endedBy = new Map<string, Float64Array>();
  for (const v of f.variants) {
    let at = -1;
    let who = -1;
    for (const [i, k] of chosen.entries()) {
      const p = lastIndex(v.ids, k);
      if (p > at) {
        at = p;
        who = i;
      }
    }
    if (who < 0) {
      if (v.end !== undefined) noneStops.set(v.end, (noneStops.get(v.end) ?? 0) + v.count);
      continue;
    }
    reachedBy[who]! += v.count;
    if (at < v.ids.length - 1) {
      trailing += v.count;
      let row = endedBy.get(v.end!);
      if (!row) endedBy.set(v.end!, (row = new Float64Array(chosen.length)));
      row[who]! += v.count;
    }
    for (const [i, k] of chosen.entries()) {
      const r = v.distinct.indexOf(k);
      if (r < 0) continue;
      for (let j = r + 1; j < v.distinct.length; j++) follows[i]![v.distinct[j]!]! += v.count;
    }
  }
  const reach = reachedBy.reduce((s, x) => s + x, 0);
  if (reach < STATUS_REACH * Math.max(f.cases - recentTotal, 0.5 * f.cases)) return undefined;
  // Where each last step ends the cases of one status, the last event already tells the outcome (a closing step
  // after the decision): only last steps shared by several statuses make the status set the outcome's record.
  let mixed = 0;
  for (const row of endedBy.values()) {
    const sorted = [...row].sort((a, b) => b - a);
    const total = sorted.reduce((t, x) => t + x, 0);
    if ((sorted[1] ?? 0) >= MIX * total) mixed += total;
  }
  if (mixed < MIXED_SHARE * reach) return undefined;
  // A new step after every member, in most of each member's cases: the routes join and the process goes on.
  for (let y = 0; y < n; y++) {
    if (chosen.every((k, i) => follows[i]![y]! >= COMMON_CONTINUATION * cases[k]!)) return undefined;
  }

  const members = chosen.map((k) => f.activities[k]!);
  const verdict = new Map<string, 'success' | 'failure' | undefined>();
  const twinOf = new Map<string, string>();
  const named = f.activities.filter((a) => nameVerdict(a) !== undefined);
  const sameCases = (m: string, t: string) => {
    const both = t === m ? 0 : f.order(m, t).both;
    return both >= TWIN * (f.activityCases.get(m) ?? 0) && both >= TWIN * (f.activityCases.get(t) ?? 0);
  };
  const alsoWritten = new Map<string, string[]>();
  for (const [x, y] of follows_) {
    const m = f.activities[y]!;
    if (members.includes(m) && sameCases(m, f.activities[x]!)) alsoWritten.set(m, [...(alsoWritten.get(m) ?? []), f.activities[x]!].sort(cmp));
  }
  for (const m of members) {
    const own = nameVerdict(m);
    if (own) {
      verdict.set(m, own);
      continue;
    }
    const twins = named.filter((t) => sameCases(m, t));
    const kinds = new Set(twins.map((t) => nameVerdict(t)));
    if (kinds.size === 1) {
      verdict.set(m, [...kinds][0]);
      twinOf.set(m, twins.sort(cmp)[0]!);
    } else verdict.set(m, undefined);
  }
  const reached = new Map(members.map((m, i) => [m, reachedBy[i]!]));
  members.sort((a, b) => reached.get(b)! - reached.get(a)! || cmp(a, b));
  const list = members
    .map((m) => {
      const with_ = [...new Set([...(alsoWritten.get(m) ?? []), ...(twinOf.has(m) ? [twinOf.get(m)!] : [])])].sort(cmp);
      return `${q(m)} ${reached.get(m)}${with_.length ? ` (${with_.map(q).join(', ')} written in the same cases)` : ''}`;
    })
    .join(', ');
  const statement =
    `${list}: each done at most once in a case and never with another (in at most ${STATUS_NOISE * 100}% of its cases), reached together by ${reach} of ${f.cases} cases (${pct(ratio(reach, f.cases))}), each late (in most of its cases at most ${LATE_NEW} steps new to the case follow it), and no new step follows all of them; ` +
    `${trailing} of those cases (${pct(ratio(trailing, reach))}) go on after their status (trailing work: closing items begun before, or a part of the case such as an offer), ${mixed} of them (${pct(ratio(mixed, reach))}) ending at a step that also ends cases of another status (in at least ${MIX * 100}% of that step's cases), so a case's outcome is the status it reached, not its last step (a case reaching two, noise, counts for the later)`;
  return { members, verdict, twinOf, reached, reach, noneStops, trailing, mixed, statement };
}

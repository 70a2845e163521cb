import { cmp } from '../event.js';
import { END, splitChoiceKey } from '../tally.js';
import type { Decision, SuccessCriterion } from '../document/types.js';
import { pct, q, ratio, slug, type Facts } from './facts.js';
import type { EndReading } from './outcomes.js';
import type { LogProfile } from './profile.js';

/**
 * A verdict recorded in an attribute, whatever its name (issue 31). A system that checks its work writes the check's
 * result on the check's event (a test's `fixed` true or false) and often copies it onto the closing event; the closing
 * step is then done whether the check passed or not (a repair archived unfixed after the last allowed try). Reading
 * success from the ending's name alone calls such cases successes. An attribute is read as the recorded verdict when:
 * - its values are true and false (booleans, or the words written as text: a result field of two values);
 * - it is written during the case, not on the first event in (nearly) every case (a property of the case at its
 *   registration says nothing of how the work went, and a first-event value foretelling the ending is a leak);
 * - the process acts on it: it is the attribute of a strong rule of an explained decision (a failed check sends the
 *   case back, a passed one on), so it is a check's result, not a descriptive flag;
 * - it is known when the cases stop at an ending (the last event or the check before it) in at least KNOWN_AT_END of
 *   them, and it splits them: both values there, in at least 2 cases each;
 * - true at the end of most of the cases stopping at those endings: true is then read as the success value (a
 *   reading: the log says a case ended true, not that true is success, so it is a hypothesis).
 * Counted from the choice counters at the endings (Tally.choices: the value known at a step's first visit with the
 * next step END), so only endings every case stops at on its first visit there are split, exactly.
 */
export const KNOWN_AT_END = 0.95;
const TRUE = new Set(['b:true', 's:true', 's:TRUE', 's:True', 's:yes', 's:Yes']);
const FALSE = new Set(['b:false', 's:false', 's:FALSE', 's:False', 's:no', 's:No']);
/** Written on the first event in at most this share of the cases carrying it: a result of the work, not of the registration. */
const AT_FIRST = 0.1;

export interface Verdict {
  attribute: string;
  /** The decision acting on it (its id) and where. */
  decision: string;
  at: string;
  /** Per ending split: cases stopping there true and false (and without a value). */
  byEnding: Map<string, { yes: number; no: number; none: number }>;
}

export function readVerdict(f: Facts, profile: LogProfile, decisions: readonly Decision[], ends: EndReading): Verdict | undefined {
  if (ends.status) return undefined;
  if (profile.outcomes.length || profile.categories.length) return undefined;
  /** ending -> attribute -> [true, false]; ending -> cases stopping at their first visit. */
  const atEnd = new Map<string, Map<string, [number, number]>>();
  const firstStops = new Map<string, number>();
  for (const [key, n] of f.tally.choices) {
    const c = splitChoiceKey(key);
    if (c.next !== END) continue;
    if (c.attribute === '') {
      firstStops.set(c.at, (firstStops.get(c.at) ?? 0) + n);
      continue;
    }
    const yes = TRUE.has(c.value);
    if (!yes && !FALSE.has(c.value)) continue;
    let byAttribute = atEnd.get(c.at);
    if (!byAttribute) atEnd.set(c.at, (byAttribute = new Map()));
    const counts = byAttribute.get(c.attribute) ?? [0, 0];
    counts[yes ? 0 : 1] += n;
    byAttribute.set(c.attribute, counts);
  }
  const actedOn = new Map<string, Decision>();
  for (const d of decisions) {
    if (!d.explained) continue;
    for (const r of d.rules) {
      const attribute = (r.when[0] as { attribute?: unknown } | undefined)?.attribute;
      if (typeof attribute === 'string' && r.evidence.strength === 'strong' && !actedOn.has(attribute)) actedOn.set(attribute, d);
    }
  }
  let best: Verdict | undefined;
  let bestCases = 0;
  for (const attribute of [...actedOn.keys()].sort(cmp)) {
    const p = profile.attributes.get(attribute);
    if (!p || p.atFirst > AT_FIRST * p.present || profile.leaks.has(attribute)) continue;
    const byEnding = new Map<string, { yes: number; no: number; none: number }>();
    let yes = 0;
    let no = 0;
    for (const [x, kind] of ends.ends) {
      if (kind === 'failure') continue;
      const stops = ends.stops.get(x) ?? 0;
      // Only endings every case stopping at reaches once: the counters then split them exactly.
      if (!stops || firstStops.get(x) !== stops) continue;
      const [t, n] = atEnd.get(x)?.get(attribute) ?? [0, 0];
      if (t + n < KNOWN_AT_END * stops) continue;
      byEnding.set(x, { yes: t, no: n, none: stops - t - n });
      yes += t;
      no += n;
    }
    if (yes < 2 || no < 2 || yes <= no || yes + no <= bestCases) continue;
    const d = actedOn.get(attribute)!;
    best = { attribute, decision: d.id, at: d.at, byEnding };
    bestCases = yes + no;
  }
  return best;
}

/**
 * The verdict applied: each split ending's cases are successes when they end true and failures when they end false
 * (the rest keep the ending's kind); the success-ending criterion counts only the cases ending true.
 */
export function applyVerdict(v: Verdict, ends: EndReading, criteria: SuccessCriterion[], cases: number): void {
  for (const [x, s] of v.byEnding) {
    const kind = ends.ends.get(x);
    const i = ends.outcomes.findIndex((o) => o.end_activity === x && o.kind === kind);
    if (i < 0 || kind === undefined) continue;
    const items = [
      { id: `success-${slug(x)}`, end_activity: x, kind: 'success' as const, cases: s.yes, share: ratio(s.yes, cases) },
      { id: `failure-${slug(x)}`, end_activity: x, kind: 'failure' as const, cases: s.no, share: ratio(s.no, cases) },
      ...(s.none ? [{ id: `${kind}-${slug(x)}-unrecorded`, end_activity: x, kind, cases: s.none, share: ratio(s.none, cases) }] : []),
    ].filter((o) => o.cases > 0);
    ends.outcomes.splice(i, 1, ...items);
  }
  ends.outcomes.sort((a, b) => b.cases - a.cases || cmp(a.end_activity, b.end_activity) || cmp(a.kind, b.kind));
  const c = criteria.find((x) => x.id === 'success-ending');
  const split = [...v.byEnding.keys()].sort(cmp);
  if (c && ends.successEnds.every((x) => v.byEnding.has(x))) {
    const yes = ends.successEnds.reduce((n, x) => n + v.byEnding.get(x)!.yes, 0);
    const no = ends.successEnds.reduce((n, x) => n + v.byEnding.get(x)!.no, 0);
    c.statement = `A case succeeds when it ends with ${ends.successEnds.map(q).join(' or ')} and its last ${q(v.attribute)} is true (the verdict the log records; ${no} cases end there with it false and did not succeed).`;
    c.test = `last activity of the case in [${ends.successEnds.map(q).join(', ')}] and last value of ${q(v.attribute)} in the case is true`;
    c.share_met = ratio(yes, cases);
    c.evidence = { cases: yes, of_cases: cases, share: ratio(yes, cases), strength: 'hypothesis', method: `${verdictMethod(v)}; cases ending there with it true, over all cases (${pct(ratio(yes, cases))})` };
  } else if (!c && split.length) {
    const yes = split.reduce((n, x) => n + v.byEnding.get(x)!.yes, 0);
    criteria.unshift({
      id: 'success-ending',
      statement: `A case succeeds when it ends with ${split.map(q).join(' or ')} and its last ${q(v.attribute)} is true (the verdict the log records, read as success where it is true).`,
      test: `last activity of the case in [${split.map(q).join(', ')}] and last value of ${q(v.attribute)} in the case is true`,
      share_met: ratio(yes, cases),
      evidence: { cases: yes, of_cases: cases, share: ratio(yes, cases), strength: 'hypothesis', method: `${verdictMethod(v)}; cases ending there with it true, over all cases (${pct(ratio(yes, cases))})` },
    });
  }
}

/** How the verdict was read, for evidence and the outcomes assumption. */
export function verdictMethod(v: Verdict): string {
  const parts = [...v.byEnding].sort((a, b) => cmp(a[0], b[0])).map(([x, s]) => `${q(x)}: true ${s.yes}, false ${s.no}${s.none ? `, none ${s.none}` : ''}`);
  return `${q(v.attribute)} is read as the verdict the log records: true or false, written during the case (not on its first event), acted on by the decision at ${q(v.at)} (${v.decision}), known when the cases stop (${parts.join('; ')}); true, the value most of them end with, is read as success (a reading: the log does not say which value is success)`;
}

import { cmp } from '../event.js';
import type { ProcessPart, SuccessCriterion } from '../document/types.js';
import { evidence, pct, q, ratio, type Facts } from './facts.js';
import type { EndReading } from './outcomes.js';

/** Words that name the action rather than the thing acted on. */
const STOP = new Set(['the', 'and', 'for', 'with', 'from', 'into', 'new', 'set', 'get', 'send', 'check', 'create', 'update', 'mark', 'level', 'all', 'not']);

/**
 * The thing a case is about, as the noun most activity names share (activity
 * names are mostly verb + object, so the commonest word is the object; the
 * first and last step of the commonest variant, which create and close the
 * thing, count one extra each). A guess from words: strength `hypothesis`.
 */
export function caseNoun(f: Facts): { noun: string | undefined; activities: number } {
  const score = new Map<string, { names: number; cases: number }>();
  const main = f.variants[0]?.path ?? [];
  const ends = [main[0], main[main.length - 1]];
  for (const a of f.activities) {
    const words = new Set(a.toLowerCase().split(/[^a-z]+/).filter((w) => w.length >= 3 && !STOP.has(w)));
    for (const w of words) {
      const s = score.get(w) ?? { names: 0, cases: 0 };
      s.names += 1 + ends.filter((e) => e === a).length;
      s.cases += f.activityCases.get(a) ?? 0;
      score.set(w, s);
    }
  }
  const best = [...score.entries()].filter(([, s]) => s.names >= 2).sort((x, y) => y[1].names - x[1].names || y[1].cases - x[1].cases || cmp(x[0], y[0]))[0];
  return { noun: best?.[0], activities: best?.[1].names ?? 0 };
}

export function readProcessPart(f: Facts, caseNotion: string | undefined, objectTypes: string[], ends: EndReading): ProcessPart {
  const { noun, activities } = caseNoun(f);
  const notion = caseNotion && caseNotion !== 'trace' ? caseNotion : undefined;
  const objectType = notion && objectTypes.includes(notion) ? notion : undefined;
  const thing = objectType ?? noun ?? 'case';
  const represents = objectType
    ? `one ${objectType} object with the events of the objects related to it`
    : noun
      ? `one ${noun}${notion ? ` (case notion: ${notion})` : ''}`
      : `one case${notion ? ` identified by ${notion}` : ''}`;
  const successCases = ends.outcomes.filter((o) => o.kind === 'success').reduce((n, o) => n + o.cases, 0);
  const objective = ends.successEnds.length
    ? `to bring each ${thing} to ${ends.successEnds.map(q).join(' or ')}`
    : 'not recognisable: no ending reads as a success';
  const method =
    (objectType ? `the case notion is the object type ${q(objectType)}` : noun ? `${q(noun)} is the word most activity names share (score ${activities} over ${f.activities.length} names, the first and last step of the commonest variant counting twice)` : 'no word is shared by two activity names') +
    `; the objective is the success endings (${ends.successEnds.length ? ends.successEnds.map(q).join(', ') : 'none'}), reached by ${successCases} of ${f.cases} cases`;
  return { case_represents: represents, objective, evidence: evidence(successCases, f.cases, ratio(successCases, f.cases), 'hypothesis', method) };
}

/** Statements with a test on the data and the counted share of cases meeting them. */
export function readSuccessCriteria(f: Facts, ends: EndReading, serviceLevel: { hours: number; share: number; method: string } | undefined): SuccessCriterion[] {
  const out: SuccessCriterion[] = [];
  if (ends.successEnds.length) {
    const n = ends.outcomes.filter((o) => o.kind === 'success').reduce((s, o) => s + o.cases, 0);
    out.push({
      id: 'success-ending',
      statement: `A case succeeds when it ends with ${ends.successEnds.map(q).join(' or ')}.`,
      test: `last activity of the case in [${ends.successEnds.map(q).join(', ')}]`,
      share_met: ratio(n, f.cases),
      evidence: evidence(n, f.cases, ratio(n, f.cases), 'counted', `cases whose last event is a success ending, over all cases (${pct(ratio(n, f.cases))})`),
    });
  }
  if (ends.failureEnds.length) {
    const fail = new Set(ends.failureEnds);
    let n = 0;
    // By activity id over the distinct activities of each variant (a failure ending outside the tally's activities matches no path).
    const failIds = new Uint8Array(f.activities.length);
    for (const a of fail) if (f.idOf.has(a)) failIds[f.idOf.get(a)!] = 1;
    for (const v of f.variants) if (!v.distinct.some((k) => failIds[k] === 1)) n += v.count;
    out.push({
      id: 'no-failure-step',
      statement: `A successful case never passes through ${ends.failureEnds.map(q).join(' or ')}.`,
      test: `no event of [${ends.failureEnds.map(q).join(', ')}] in the case`,
      share_met: ratio(n, f.cases),
      evidence: evidence(n, f.cases, ratio(n, f.cases), 'counted', 'cases without any event of a failure ending, counted over the variants'),
    });
  }
  if (serviceLevel) {
    out.push({
      id: 'within-service-level',
      statement: `A case is finished within ${serviceLevel.hours} hours of its first event.`,
      test: `last event time - first event time <= ${serviceLevel.hours} h`,
      share_met: serviceLevel.share,
      evidence: evidence(Math.round(serviceLevel.share * f.cases), f.cases, serviceLevel.share, 'counted', serviceLevel.method),
    });
  }
  return out;
}

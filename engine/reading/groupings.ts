import type { Plain } from '../document/types.js';
import { pct, q, ratio, type Facts } from './facts.js';
import type { EndReading } from './outcomes.js';
import type { LogProfile } from './profile.js';

/**
 * What a case is part of (issue 31): a case attribute several cases share is a category of the case (a product, a
 * type) or the key of a larger case (offers of one application, visits of one patient); the counts do not tell which,
 * so the note says both and claims neither. Where the cases of one value end in success and in failure, the question
 * asks whether a failed part was replaced: an offer cancelled while a sibling offer was accepted was not lost. Counted
 * from the profile's first-event values per ending, so every figure is recomputable from the events.
 */
export interface GroupReading {
  /** A sentence for process.case_represents, or ''. */
  note: string;
  assumptions: Plain[];
  open_questions: Plain[];
}

export function readGroupings(f: Facts, profile: Pick<LogProfile, 'groupings'>, ends: EndReading): GroupReading {
  const out: GroupReading = { note: '', assumptions: [], open_questions: [] };
  // The grouping with the most cases sharing a value speaks for the larger case; the others are listed.
  const ranked = profile.groupings
    .map((g) => {
      let shared = 0;
      for (const byEnd of g.byValue.values()) {
        let n = 0;
        for (const k of byEnd.values()) n += k;
        if (n > 1) shared += n;
      }
      return { ...g, shared };
    })
    .filter((g) => g.shared >= 0.05 * g.cases)
    .sort((x, y) => y.shared - x.shared || (x.attribute < y.attribute ? -1 : 1));
  const g = ranked[0];
  if (!g) return out;
  // A value constant in each case and shared by many cases is first a category of the case (a product, a type, an
  // impact level); it is the key of a larger case only when the cases of one value follow one another or share
  // events (offers of one application, items of one order), which the counted state does not record (issue 31).
  let largest = 0;
  for (const byEnd of g.byValue.values()) largest = Math.max(largest, [...byEnd.values()].reduce((s, k) => s + k, 0));
  out.note = `; cases group by ${q(g.attribute)}: ${g.cases} cases carry ${g.values} values of it, ${g.shared} of them share theirs with another case (at most ${largest} one value), constant within each case: a category of the case unless the cases of one value follow one another or share events (then parts of a larger case the log does not key by), which the counted state does not record${ranked.length > 1 ? `; other such attributes: ${ranked.slice(1, 4).map((x) => q(x.attribute)).join(', ')}` : ''}`;
  // Counted by last activity: where the outcome is a status reached instead (statuses.ts), the counts would miss it.
  if (ends.status) return out;
  const success = new Set(ends.successEnds);
  const failure = new Set(ends.failureEnds);
  let groupsWithSuccess = 0;
  let failedBesideSuccess = 0;
  for (const byEnd of g.byValue.values()) {
    let won = false;
    let failed = 0;
    for (const [end, k] of byEnd) {
      if (success.has(end)) won = true;
      if (failure.has(end)) failed += k;
    }
    if (won) {
      groupsWithSuccess++;
      failedBesideSuccess += failed;
    }
  }
  if (success.size) {
    out.assumptions.push(
      `Counted by ${q(g.attribute)} instead of by case, ${groupsWithSuccess} of ${g.values} values (${pct(ratio(groupsWithSuccess, g.values))}) have a case ending in ${[...success].map(q).join(' or ')}, against ${pct(ratio(ends.outcomes.filter((o) => o.kind === 'success').reduce((n, o) => n + o.cases, 0), f.cases))} of the cases.`,
    );
  }
  if (failedBesideSuccess > 0) {
    const failedCases = ends.outcomes.filter((o) => o.kind === 'failure').reduce((n, o) => n + o.cases, 0);
    out.open_questions.push({
      question: `Are the ${failedBesideSuccess} cases ending in a failure ending (${[...failure].map(q).join(', ')}) that share their ${q(g.attribute)} with a case ending in success failures, or replaced by that case?`,
      evidence: { cases: failedBesideSuccess, share: ratio(failedBesideSuccess, failedCases), method: `first-event values of ${q(g.attribute)} per last activity: cases ending in a failure ending whose value is also that of a case ending in success, over the ${failedCases} cases ending in failure` },
    });
  }
  return out;
}

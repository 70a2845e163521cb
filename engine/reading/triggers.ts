import type { Decision, ExceptionItem, Plain } from '../document/types.js';
import { END_LABEL } from './decisions.js';
import { pct, q, type Facts } from './facts.js';

/** A rule is a repeat's trigger when it holds for at least this share of its cases... */
export const TRIGGER_HOLDS = 0.95;
/** ...and the branch it sends cases to comes back to the repeated step in at least this share of the cases taking it. */
export const WAY_BACK = 0.95;
/** ...and at least this share of the repeating cases went that way (as the step before a repeat must cover, exceptions.ts). */
const COVERS = 0.25;

/**
 * Repeats explained by the attributes of the step before them (issue 31). A check writes its verdict on its own event
 * (a test's `fixed` false) and the process goes back when it fails: the step right before the repeat names no cause
 * (every test follows a repair), the check's verdict does. The decisions already read which attribute known at a
 * step's first visit sends cases to which next step (decisions.ts, attributes written on that very event included,
 * which are evidence and no leak: the step wrote them before the choice). So a repeat of A is triggered at P by
 * "attribute in values" when an explained decision at P has a rule holding for at least TRIGGER_HOLDS of its cases
 * that sends them to a step b, at least WAY_BACK of the cases going from their first P straight to b do A again after
 * having done it (b is the way back), at least WAY_BACK of the cases taking the decision's other branches do none of
 * the steps they had done again (those lead out of the loop: a choice between two ways round the loop, such as which
 * repair to redo, is no trigger of the repeat), and at least COVERS of the cases repeating A went that way. Counted over the
 * variants; the rule's own figures are the decision's. Returns the ids of the exceptions so explained: no question asks
 * why they repeat, the data answers it.
 */
export function attributeTriggers(f: Facts, decisions: readonly Decision[], exceptions: ExceptionItem[]): Set<string> {
  const answered = new Set<string>();
  // Only rules that could trigger are tried, so a log without any costs nothing.
  const candidates = decisions.flatMap((d) => (d.explained ? d.rules.filter((r) => r.then !== END_LABEL && r.holds >= TRIGGER_HOLDS && r.evidence.strength !== 'weak').map((r) => ({ d, r })) : []));
  if (!candidates.length) return answered;
  for (const x of exceptions) {
    if (!x.id.startsWith('repeated-')) continue;
    const a = f.activities.find((l) => x.name === `${q(l)} repeated`);
    const ia = a === undefined ? undefined : f.idOf.get(a);
    if (a === undefined || ia === undefined) continue;
    let best: { text: string; via: number; handling: Plain[] } | undefined;
    for (const { d, r } of candidates) {
      const ip = f.idOf.get(d.at);
      if (ip === undefined) continue;
      {
        const ib = f.idOf.get(r.then);
        if (ib === undefined) continue;
        const others = new Set(d.branches.filter((b) => b.to !== r.then && b.to !== END_LABEL).map((b) => f.idOf.get(b.to)));
        const stopsThere = d.branches.some((b) => b.to === END_LABEL);
        let repeating = 0;
        let via = 0;
        let taking = 0;
        let back = 0;
        let otherWay = 0;
        let onward = 0;
        for (const v of f.variants) {
          const ids = v.ids;
          let visits = 0;
          for (const k of ids) if (k === ia) visits++;
          if (visits > 1) repeating += v.count;
          const i = ids.indexOf(ip);
          if (i < 0) continue;
          if (ids[i + 1] !== ib) {
            // The other branches lead out of the loop: no step done up to P is done again.
            const next = ids[i + 1];
            if (next === undefined ? !stopsThere : !others.has(next)) continue;
            otherWay += v.count;
            const done = new Set(ids.subarray(0, i + 1));
            if (!ids.subarray(i + 1).some((k) => done.has(k))) onward += v.count;
            continue;
          }
          if (visits > 1) via += v.count;
          taking += v.count;
          const before = ids.indexOf(ia);
          if (before >= 0 && before <= i && ids.lastIndexOf(ia) > i) back += v.count;
        }
        if (!taking || back < WAY_BACK * taking || !otherWay || onward < WAY_BACK * otherWay || via < COVERS * repeating || (best && via <= best.via)) continue;
        const when = conditionText(r.when);
        if (when === undefined) continue;
        best = {
          via,
          text:
            `after ${q(d.at)} with ${when}: ${via} of the ${repeating} cases that repeat it went from their first ${q(d.at)} straight to ${q(r.then)}, and ${back} of the ${taking} cases taking that way repeat it; ` +
            `the decision at ${q(d.at)} sends the cases with ${when} there (${r.id}, ${pct(r.holds)} of ${r.cases} cases), so the repeat follows that value, not the step before it`,
          handling: [d.at, r.then, a, `the case goes on from ${q(a)}`],
        };
      }
    }
    if (!best) continue;
    x.trigger = best.text;
    x.handling = best.handling;
    answered.add(x.id);
  }
  return answered;
}

/** A rule's condition as words: 'fixed' false, 'kind' in [a, b], 'amount' >= 200; undefined when unreadable. */
function conditionText(when: Plain[]): string | undefined {
  if (when.length !== 1) return undefined;
  const c = when[0] as { attribute?: unknown; op?: unknown; value?: unknown };
  if (typeof c.attribute !== 'string' || typeof c.op !== 'string') return undefined;
  if (c.op === 'in' && Array.isArray(c.value)) return c.value.length === 1 ? `${q(c.attribute)} ${String(c.value[0])}` : `${q(c.attribute)} in [${c.value.map(String).join(', ')}]`;
  if ((c.op === '<' || c.op === '>=') && typeof c.value === 'number') return `${q(c.attribute)} ${c.op} ${c.value}`;
  return undefined;
}

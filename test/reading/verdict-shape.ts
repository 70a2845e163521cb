import { Rng } from '../../connectors/simulator/random.js';
import type { WireEvent } from '../../engine/index.js';

/**
 * A simulated repair log with a stated truth (issue 31), shaped as a checking system writes its data: the analysis
 * writes the defect's `severity` on its own event, and it sets which repair follows (low: simple, high: complex); a
 * notice to the customer is sent at some point while the repair runs (side work, concurrent with both repairs); the
 * test writes its verdict `fixed` on its own event; a failed test sends the case back (restart, repair again), and
 * after the third failed test the case is archived anyway; the archive copies the last verdict. A case-level flag
 * (`case:priority`, on every event from the first) is noise. With `noise`, severity and fixed are coin flips the
 * process ignores (the repair and the restart are chosen at random): no rule, no verdict, no attribute trigger.
 * Names are opaque codes when `hidden`.
 */
export interface VerdictTruth {
  cases: number;
  /** Cases archived with fixed true, and with fixed false (given up after three tests). */
  archivedFixed: number;
  archivedUnfixed: number;
  /** Cases whose first repair is simple (low severity) and complex. */
  simple: number;
  complex: number;
  /** Cases whose test comes more than once, and those restarted right after their first test. */
  retested: number;
  restartedAfterFirstTest: number;
}

export const VERDICT_NAMES = { register: 'Register', analyze: 'Analyze Defect', notify: 'Inform User', simple: 'Repair (Simple)', complex: 'Repair (Complex)', test: 'Test Repair', restart: 'Restart Repair', archive: 'Archive Repair' } as const;
type Step = keyof typeof VERDICT_NAMES;
const HIDDEN: Record<Step, string> = { register: 'R01', analyze: 'R02', notify: 'R03', simple: 'R04', complex: 'R05', test: 'R06', restart: 'R07', archive: 'R08' };
const MIN = 60_000;

export function verdictLog(options: { cases?: number; seed?: number; hidden?: boolean; noise?: boolean } = {}): { events: WireEvent[]; truth: VerdictTruth; names: Record<Step, string> } {
  const n = options.cases ?? 800;
  const rng = new Rng(options.seed ?? 7);
  const r = () => rng.next();
  const names = options.hidden ? HIDDEN : VERDICT_NAMES;
  const events: WireEvent[] = [];
  const truth: VerdictTruth = { cases: n, archivedFixed: 0, archivedUnfixed: 0, simple: 0, complex: 0, retested: 0, restartedAfterFirstTest: 0 };
  const start = Date.UTC(2025, 2, 3, 8);
  for (let c = 0; c < n; c++) {
    const id = `rep-${1000 + c}`;
    const priority = r() < 0.3;
    const steps: { s: Step; at: number; attrs: Record<string, string | boolean> }[] = [];
    let t = start + c * 45 * MIN;
    const at = (s: Step, dt: number, attrs: Record<string, string | boolean> = {}) => {
      t += dt;
      steps.push({ s, at: t, attrs });
    };
    at('register', 0);
    const high = r() < 0.45;
    at('analyze', (5 + r() * 10) * MIN, { severity: high ? 'high' : 'low' });
    const complex = options.noise ? r() < 0.45 : high;
    if (complex) truth.complex++;
    else truth.simple++;
    // The notice goes out once, before or after one of the first steps of the repair loop.
    const notifyAfter = Math.floor(r() * 3);
    let done = 0;
    const maybeNotify = () => {
      if (done++ === notifyAfter) at('notify', (1 + r() * 5) * MIN);
    };
    maybeNotify();
    let fixed = false;
    let tests = 0;
    for (;;) {
      at(complex ? 'complex' : 'simple', (5 + r() * 20) * MIN);
      maybeNotify();
      tests++;
      const pass = r() < (complex ? 0.8 : 0.55);
      const written = options.noise ? r() < 0.7 : pass;
      at('test', (5 + r() * 10) * MIN, { fixed: written });
      fixed = written;
      maybeNotify();
      const again = options.noise ? r() < 0.3 && tests < 3 : !pass && tests < 3;
      if (!again) break;
      if (tests === 1) truth.restartedAfterFirstTest++;
      at('restart', (1 + r() * 5) * MIN);
    }
    if (done <= notifyAfter) at('notify', (1 + r() * 5) * MIN);
    if (tests > 1) truth.retested++;
    at('archive', (5 + r() * 10) * MIN, { fixed });
    if (fixed) truth.archivedFixed++;
    else truth.archivedUnfixed++;
    steps.forEach(({ s, at: time, attrs }, i) =>
      events.push({ caseId: id, eventId: `${id}-${i}`, activity: names[s], timestamp: new Date(time).toISOString(), resource: `w${1 + Math.floor(r() * 4)}`, attributes: { 'case:priority': priority, ...attrs } }),
    );
  }
  return { events, truth, names };
}

import { Rng } from '../../connectors/simulator/random.js';
import type { WireEvent } from '../../engine/index.js';

/**
 * Simulated logs with a stated truth about paths (issue 31), shaped as public samples are made: pm4py's
 * `*_1t_per_variant` logs keep one case of every variant of a real log, so every variant has one case and a
 * variant's share is a share of distinct paths; and logs whose two commonest paths are followed equally often.
 * Names are opaque codes when `hidden`, so no claim may rest on words.
 */
export const PATH_NAMES = {
  register: 'Register Request',
  check: 'Check Documents',
  request: 'Request Documents',
  call: 'Call Customer',
  assess: 'Assess Request',
  second: 'Second Opinion',
  approve: 'Approve Request',
  reject: 'Reject Request',
  notify: 'Notify Customer',
  archive: 'Archive Request',
} as const;
type Step = keyof typeof PATH_NAMES;
const HIDDEN: Record<Step, string> = { register: 'K1', check: 'K2', request: 'K3', call: 'K4', assess: 'K5', second: 'K6', approve: 'K7', reject: 'K8', notify: 'K9', archive: 'K10' };

export interface PathTruth {
  cases: number;
  /** Distinct paths among the cases. */
  variants: number;
  /** Cases of each of the two commonest paths (for the tie shape). */
  top: number;
  next: number;
}

function write(paths: Step[][], names: Record<Step, string>, rng: Rng, prefix: string): WireEvent[] {
  const H = 3_600_000;
  const events: WireEvent[] = [];
  const start = Date.UTC(2025, 0, 6, 8);
  paths.forEach((path, c) => {
    const caseId = `${prefix}-${1000 + c}`;
    let t = start + c * 3 * H;
    for (const s of path) {
      events.push({ caseId, activity: names[s], timestamp: t, eventId: `${caseId}-${events.length}`, resource: `u0${1 + Math.floor(rng.next() * 6)}` });
      t += Math.floor((0.5 + rng.next() * 30) * H);
    }
  });
  return events;
}

/** A varied request process: document rounds (a loop), calls, second opinions, approval or rejection. */
function variedPath(r: () => number): Step[] {
  const p: Step[] = ['register', 'check'];
  let rounds = 0;
  while (r() < 0.45 && rounds < 4) {
    p.push('request');
    if (r() < 0.5) p.push('call');
    p.push('check');
    rounds++;
  }
  p.push('assess');
  if (r() < 0.3) p.push('second');
  if (r() < 0.25) p.push('call');
  const ok = r() < 0.7;
  p.push(ok ? 'approve' : 'reject');
  if (r() < 0.9) p.push('notify');
  if (r() < 0.5) p.push('archive');
  return p;
}

/**
 * One case per variant: the varied process simulated over `source` cases, then the first case of every distinct path
 * kept (as pm4py's samples are made). Truth: every case has a path of its own, yet the source log had a commonest path
 * followed by many of its cases; the sample cannot show which.
 */
export function onePerVariantLog(options: { source?: number; seed?: number; hidden?: boolean } = {}): { events: WireEvent[]; truth: PathTruth; names: Record<Step, string> } {
  const rng = new Rng(options.seed ?? 5);
  const r = () => rng.next();
  const names = options.hidden ? HIDDEN : PATH_NAMES;
  const seen = new Set<string>();
  const kept: Step[][] = [];
  for (let i = 0; i < (options.source ?? 4000); i++) {
    const p = variedPath(r);
    const key = p.join(',');
    if (seen.has(key)) continue;
    seen.add(key);
    kept.push(p);
  }
  return { events: write(kept, names, rng, 'req'), truth: { cases: kept.length, variants: kept.length, top: 1, next: 1 }, names };
}

/**
 * Two ways through the process followed equally often (`top` and `next` cases: the assessor approves at once, or
 * after a second opinion), plus `rest` cases on varied paths. Truth: with top = next, or a gap within sampling noise,
 * neither way is the main one; with a wide gap the commonest is.
 */
export function twoWaysLog(options: { top: number; next: number; rest?: number; seed?: number; hidden?: boolean }): { events: WireEvent[]; truth: PathTruth; names: Record<Step, string> } {
  const rng = new Rng(options.seed ?? 9);
  const r = () => rng.next();
  const names = options.hidden ? HIDDEN : PATH_NAMES;
  const paths: Step[][] = [];
  // Written by name order reversed, so a tie broken by name would pick the other one than file order does.
  for (let i = 0; i < options.next; i++) paths.push(['register', 'check', 'assess', 'second', 'approve', 'notify']);
  for (let i = 0; i < options.top; i++) paths.push(['register', 'check', 'assess', 'approve', 'notify']);
  for (let i = 0; i < (options.rest ?? 100); i++) {
    // Varied paths that never fall on the two ways: every one has a document round.
    const p = variedPath(r);
    if (!p.includes('request')) p.splice(2, 0, 'request', 'check');
    paths.push(p);
  }
  const events = write(paths, names, rng, 'two');
  const keys = new Map<string, number>();
  for (const p of paths) keys.set(p.join(','), (keys.get(p.join(',')) ?? 0) + 1);
  return { events, truth: { cases: paths.length, variants: keys.size, top: options.top, next: options.next }, names };
}

/**
 * A step directly followed by the next in most but not all cases: 'Assess' comes right after 'Check' except where a
 * call sits between (`calls` of `cases`). Truth: the chain holds in (cases - calls) / cases, never "always".
 */
export function mostlyDirectLog(options: { cases?: number; calls?: number; hidden?: boolean } = {}): { events: WireEvent[]; names: Record<Step, string>; cases: number; calls: number } {
  const rng = new Rng(13);
  const names = options.hidden ? HIDDEN : PATH_NAMES;
  const cases = options.cases ?? 400;
  const calls = options.calls ?? 16;
  const paths: Step[][] = [];
  for (let i = 0; i < cases; i++) {
    const p: Step[] = ['register', 'check'];
    if (i % Math.floor(cases / calls) === 0 && paths.filter((x) => x.includes('call')).length < calls) p.push('call');
    p.push('assess', rng.next() < 0.7 ? 'approve' : 'reject', 'notify');
    paths.push(p);
  }
  return { events: write(paths, names, rng, 'dir'), names, cases, calls };
}

import type { GraphDocument, Plain } from '../../engine/document/types.js';
import type { Event } from '../../engine/event.js';
import { bucketOf, bucketValue, quantile, sketchOf } from '../../engine/sketch.js';
import { HOUR_MS, isoUtc, parseIsoMillis } from '../../engine/time.js';
import { auditReading } from './audit-reading.js';

/**
 * A self-consistency audit of a graph document: every counted figure is
 * recomputed from the project's stored events (store.traces()), by whole-case
 * passes written without the tally, the sketches' bookkeeping or the reading,
 * so a figure the document derives another way shows up as a line
 * "<path>: document <value>, recomputed <value>". The definitions are the ones
 * the rewritten reading follows; only the engine's bucketing (sketch.ts) and
 * value labels (tally.ts choiceValue) are shared, so that bucketed comparisons
 * are exact rather than within the sketch's 1 %.
 */

/** The audited sections, each the first segment of its lines' paths. */
export const SECTIONS = ['source', 'nodes', 'edges', 'waits', 'variants', 'outcomes', 'success_criteria', 'policies', 'exceptions', 'decisions', 'roles'] as const;
export type Section = (typeof SECTIONS)[number];

/**
 * The strictness list, shared by test/document/audit.test.ts and
 * test/real-logs/audit.test.ts: a section listed here must audit empty on
 * every log; any other would be printed, not failed. Every section is strict.
 */
export const STRICT_SECTIONS: readonly Section[] = ['source', 'nodes', 'edges', 'waits', 'variants', 'outcomes', 'success_criteria', 'policies', 'exceptions', 'decisions', 'roles'];

/** One case as the audit reads it: its events in case order and what every section asks of them. */
export interface CaseFacts {
  readonly events: readonly Event[];
  readonly acts: readonly string[];
  /** Index of each activity's first event. */
  readonly first: ReadonlyMap<string, number>;
  /** Events per activity. */
  readonly visits: ReadonlyMap<string, number>;
  /** Last event time minus first event time. */
  readonly duration: number;
  readonly last: string;
}

/** The lines found so far, and what was left unaudited (with why). */
export class Findings {
  readonly lines: string[] = [];
  readonly skipped: string[] = [];
  /** Counts and texts must be equal. */
  same(path: string, doc: unknown, actual: unknown): void {
    if (doc !== actual) this.lines.push(`${path}: document ${show(doc)}, recomputed ${show(actual)}`);
  }
  /** Shares and hours: equal up to float noise (a share computed as a/b by another route may differ in the last bit). */
  near(path: string, doc: number, actual: number): void {
    if (!(Math.abs(doc - actual) <= 1e-9 * Math.max(1, Math.abs(actual)))) this.lines.push(`${path}: document ${show(doc)}, recomputed ${show(actual)}`);
  }
  problem(path: string, text: string): void {
    this.lines.push(`${path}: ${text}`);
  }
  skip(path: string, why: string): void {
    this.skipped.push(`${path}: not audited, ${why}`);
  }
}

const show = (v: unknown): string => (typeof v === 'string' ? JSON.stringify(v) : String(v));
export const ratio = (a: number, b: number): number => (b > 0 ? a / b : 0);
export const q = (label: string): string => `'${label}'`;
const SEP = '\u0000';

/** The mismatch lines, with the unaudited items beside them. */
export type Audit = string[] & { readonly skipped: readonly string[] };

/** The section a line (or skipped line) belongs to: the first segment of its path. */
export function sectionOf(line: string): string {
  return /^\/([a-z_]+)/.exec(line)?.[1] ?? '';
}

export function caseFacts(events: readonly Event[]): CaseFacts {
  const acts = events.map((e) => e.activity);
  const first = new Map<string, number>();
  const visits = new Map<string, number>();
  acts.forEach((a, i) => {
    if (!first.has(a)) first.set(a, i);
    visits.set(a, (visits.get(a) ?? 0) + 1);
  });
  const duration = events.length ? events[events.length - 1]!.time - events[0]!.time : 0;
  return { events, acts, first, visits, duration, last: acts[acts.length - 1] ?? '' };
}

/**
 * Audits `doc` against `traces` (one array of events per case, in case order:
 * store.traces()). Returns one line per figure that does not match, empty when
 * all do; `skipped` beside it names what could not be audited and why.
 */
export function auditDocument(doc: GraphDocument, traces: Iterable<readonly Event[]>): Audit {
  const cases = [...traces].filter((t) => t.length > 0).map(caseFacts);
  const f = new Findings();
  // Durations in the document are working hours on a working basis; the events only give clock time.
  const clock = doc.source.time_basis === 'clock';
  auditSource(doc, cases, f);
  auditGraph(doc, cases, f, clock);
  auditVariants(doc, cases, f);
  auditOutcomes(doc, cases, f);
  auditReading(doc, cases, f, clock);
  return Object.assign(f.lines, { skipped: f.skipped });
}

function auditSource(doc: GraphDocument, cases: readonly CaseFacts[], f: Findings): void {
  let min = Infinity;
  let max = -Infinity;
  for (const c of cases) for (const e of c.events) [min, max] = [Math.min(min, e.time), Math.max(max, e.time)];
  f.same('/source/cases', doc.source.cases, cases.length);
  f.same('/source/events', doc.source.events, cases.reduce((n, c) => n + c.events.length, 0));
  // Every event at the epoch's first instant is a log without times (NO_CLOCK_TIME): no period.
  const period = cases.length > 0 && !(min === 0 && max === 0);
  f.same('/source/period_start', doc.source.period_start, period ? isoUtc(min) : '');
  f.same('/source/period_end', doc.source.period_end, period ? isoUtc(max) : '');
}

/** Nodes, edges and their waits. Start and end are the empty label inside, as in the tally. */
function auditGraph(doc: GraphDocument, cases: readonly CaseFacts[], f: Findings, clock: boolean): void {
  const acts = new Map<string, { cases: number; events: number; repeating: number; toNext: number[] }>();
  const pairs = new Map<string, { cases: number; waits: number[] }>();
  for (const c of cases) {
    for (const [a, n] of c.visits) {
      const t = acts.get(a) ?? { cases: 0, events: 0, repeating: 0, toNext: [] };
      acts.set(a, t);
      t.cases += 1;
      t.events += n;
      if (n > 1) t.repeating += 1;
    }
    const seen = new Set<string>();
    const labels = ['', ...c.acts, ''];
    for (let i = 0; i + 1 < labels.length; i++) {
      const key = labels[i] + SEP + labels[i + 1];
      const p = pairs.get(key) ?? { cases: 0, waits: [] };
      pairs.set(key, p);
      if (!seen.has(key)) p.cases += 1;
      seen.add(key);
      // Only between two events: start and end are not events and carry no wait.
      if (i > 0 && i + 1 < labels.length - 1) {
        const wait = idleWait(c.events[i - 1]!, c.events[i]!);
        p.waits.push(wait);
        acts.get(labels[i]!)!.toNext.push(wait);
      }
    }
  }
  const hours = (waits: number[], at: number) => quantile(sketchOf(waits), at) / HOUR_MS;
  const labelOf = new Map<string, string>();
  const listed = new Set<string>();
  doc.nodes.forEach((n, i) => {
    const path = `/nodes/${i}`;
    labelOf.set(n.id, n.kind === 'activity' ? n.label : '');
    if (n.kind !== 'activity') {
      f.same(`${path}/cases`, n.cases, cases.length);
      f.same(`${path}/events`, n.events, 0);
      f.same(`${path}/cases_repeating`, n.cases_repeating, 0);
      return;
    }
    listed.add(n.label);
    const t = acts.get(n.label);
    if (!t) return f.problem(path, `activity ${q(n.label)} has no events`);
    f.same(`${path}/cases`, n.cases, t.cases);
    f.same(`${path}/events`, n.events, t.events);
    f.same(`${path}/cases_repeating`, n.cases_repeating, t.repeating);
    if (clock) f.near(`/waits (node ${path})/median_hours_to_next`, n.median_hours_to_next, hours(t.toNext, 0.5));
  });
  for (const [a, t] of acts) if (!listed.has(a)) f.problem(`/nodes (activity ${q(a)})`, `no node, recomputed cases ${t.cases}`);
  const edged = new Set<string>();
  doc.edges.forEach((e, i) => {
    const path = `/edges/${i}`;
    const from = labelOf.get(e.from);
    const to = labelOf.get(e.to);
    if (from === undefined || to === undefined) return f.problem(path, `names a node that is not listed (${e.from} -> ${e.to})`);
    const key = from + SEP + to;
    edged.add(key);
    const p = pairs.get(key) ?? { cases: 0, waits: [] };
    f.same(`${path}/cases`, e.cases, p.cases);
    f.near(`${path}/share_of_from`, e.share_of_from, ratio(p.cases, from === '' ? cases.length : (acts.get(from)?.cases ?? 0)));
    if (!clock) return;
    f.near(`/waits (edge ${path})/median_wait_hours`, e.median_wait_hours, p.waits.length ? hours(p.waits, 0.5) : 0);
    f.near(`/waits (edge ${path})/slow_wait_hours`, e.slow_wait_hours, p.waits.length ? hours(p.waits, 0.9) : 0);
  });
  for (const [key, p] of pairs) {
    const [from, to] = key.split(SEP) as [string, string];
    if (!edged.has(key)) f.problem(`/edges (${from ? q(from) : 'start'} -> ${to ? q(to) : 'end'})`, `no edge, recomputed cases ${p.cases}`);
  }
  if (!clock) f.skip('/waits', 'the document is on working time, the events give clock time');
}

function auditVariants(doc: GraphDocument, cases: readonly CaseFacts[], f: Findings): void {
  const byPath = new Map<string, number>();
  for (const c of cases) {
    const key = JSON.stringify(c.acts);
    byPath.set(key, (byPath.get(key) ?? 0) + 1);
  }
  doc.variants.forEach((v, i) => {
    const n = byPath.get(JSON.stringify(v.path.map((p: Plain) => String(p)))) ?? 0;
    f.same(`/variants/${i}/cases`, v.cases, n);
    f.near(`/variants/${i}/share`, v.share, ratio(n, cases.length));
  });
}

/**
 * Outcome items split an end activity's cases by kind, so only their sums per end activity are counted figures.
 * Where the outcome is a status reached (items with ids kind-reached-…, engine/reading/statuses.ts), a case
 * reaching one counts for the status it reached last, whatever its last step; any other case for its last step.
 */
function auditOutcomes(doc: GraphDocument, cases: readonly CaseFacts[], f: Findings): void {
  const statuses = new Set(doc.outcomes.filter((o) => /^[a-z]+-reached-/.test(o.id)).map((o) => o.end_activity));
  const endOf = (c: CaseFacts): string => {
    for (let i = c.acts.length - 1; i >= 0; i--) if (statuses.has(c.acts[i]!)) return c.acts[i]!;
    return c.last;
  };
  const ending = new Map<string, number>();
  for (const c of cases) ending.set(endOf(c), (ending.get(endOf(c)) ?? 0) + 1);
  const listed = new Map<string, number>();
  doc.outcomes.forEach((o, i) => {
    listed.set(o.end_activity, (listed.get(o.end_activity) ?? 0) + o.cases);
    f.near(`/outcomes/${i}/share`, o.share, ratio(o.cases, cases.length));
  });
  for (const x of new Set([...listed.keys(), ...ending.keys()])) {
    f.same(`/outcomes (end_activity ${q(x)}) sum of cases`, listed.get(x) ?? 0, ending.get(x) ?? 0);
  }
  f.same('/outcomes sum of cases', doc.outcomes.reduce((n, o) => n + o.cases, 0), cases.length);
}

/** A duration within `hours`, counted as the engine's sketches count it: by the value of its bucket. */
export function withinHours(millis: number, hours: number): boolean {
  return bucketValue(bucketOf(millis)) / HOUR_MS <= hours;
}

/**
 * The activity labels written as 'label' in a text, in order of appearance;
 * a match inside a longer one ('A' inside 'A 'B'') is dropped, so labels
 * holding quotes resolve to the longest.
 */
export function quoted(text: string, labels: Iterable<string>): string[] {
  const found: { label: string; at: number; end: number }[] = [];
  for (const label of labels) {
    const needle = q(label);
    for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) found.push({ label, at, end: at + needle.length });
  }
  const kept = found.filter((x) => !found.some((y) => y !== x && y.end - y.at > x.end - x.at && y.at <= x.at && x.end <= y.end));
  kept.sort((x, y) => x.at - y.at);
  return [...new Set(kept.map((x) => x.label))];
}

/** What a test prints for a section that differs: the count and the first few lines. */
export function report(log: string, section: string, lines: readonly string[], shown = 6): string {
  const more = lines.length > shown ? `\n  … and ${lines.length - shown} more` : '';
  return `[audit] ${log} / ${section}: ${lines.length} differences\n  ${lines.slice(0, shown).join('\n  ')}${more}`;
}

/** The wait between two consecutive events: up to the later one's recorded start when it has one (not before the earlier event), else to it. */
export function idleWait(prev: Event, next: Event): number {
  const raw = next.attributes.start_timestamp;
  const start = typeof raw === 'number' ? Math.floor(raw) : typeof raw === 'string' ? parseIsoMillis(raw) : Number.NaN;
  return Math.max(0, (start <= next.time ? start : next.time) - prev.time);
}

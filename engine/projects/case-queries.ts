import { toWire, type Event, type WireEvent } from '../event.js';
import type { BlockSpec } from './blocks.js';

/**
 * Questions answered by reading every kept case's events (a block's kpi,
 * variants, conformance or filter; a page of the cases of one path or end
 * activity). Pure functions over an iterable of cases, so they run wherever
 * the cases are read: in process, or on a thread from the project's files
 * (engine/projects/case-reads.ts).
 */
export type CaseQuery = Exclude<BlockSpec, { type: 'graph' }> | CasePageQuery | LiveQuery;

/** Where the open cases sit now (engine/projects/live.ts): read with the counted state, so answered by readCases. */
export interface LiveQuery {
  type: 'live';
}

/** One page of the cases whose activity sequence is `path`, or whose last activity is `endActivity`. */
export interface CasePageQuery {
  type: 'cases';
  path?: string[];
  endActivity?: string;
  offset: number;
  limit: number;
  /** Events shown per case (eventCount has them all). */
  maxEvents: number;
}

export interface CasePageAnswer {
  /** Cases matching, all pages together. */
  total: number;
  cases: { caseId: string; eventCount: number; events: Omit<WireEvent, 'caseId'>[] }[];
}

const HOUR = 3_600_000;
const round = (x: number) => Math.round(x * 1e6) / 1e6;

function quantile(sorted: number[], q: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function variants(traces: Iterable<Event[]>, limit: number) {
  const counts = new Map<string, number>();
  let cases = 0;
  for (const t of traces) {
    cases += 1;
    const k = JSON.stringify(t.map((e) => e.activity));
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  const top = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, limit);
  return { cases, distinct: counts.size, variants: top.map(([k, n]) => ({ activities: JSON.parse(k) as string[], cases: n, share: cases ? round(n / cases) : 0 })) };
}

function kpi(traces: Iterable<Event[]>) {
  const durations: number[] = [];
  const activities = new Set<string>();
  let events = 0;
  for (const t of traces) {
    events += t.length;
    for (const e of t) activities.add(e.activity);
    durations.push((t[t.length - 1]!.time - t[0]!.time) / HOUR);
  }
  durations.sort((a, b) => a - b);
  const cases = durations.length;
  const mean = cases ? durations.reduce((a, b) => a + b, 0) / cases : 0;
  return {
    cases,
    events,
    activities: activities.size,
    eventsPerCase: cases ? round(events / cases) : 0,
    throughputHours: { mean: round(mean), p50: round(quantile(durations, 0.5)), p90: round(quantile(durations, 0.9)), max: round(durations[cases - 1] ?? 0) },
  };
}

function conformance(traces: Iterable<Event[]>, spec: Extract<BlockSpec, { type: 'conformance' }>) {
  const allowed = new Set(spec.allowedTransitions.map(([a, b]) => JSON.stringify([a, b])));
  const starts = spec.startActivities && new Set(spec.startActivities);
  const ends = spec.endActivities && new Set(spec.endActivities);
  const deviations = new Map<string, number>();
  let cases = 0;
  let fitting = 0;
  for (const t of traces) {
    cases += 1;
    const bad = new Set<string>();
    if (starts && !starts.has(t[0]!.activity)) bad.add(JSON.stringify(['▶', t[0]!.activity]));
    if (ends && !ends.has(t[t.length - 1]!.activity)) bad.add(JSON.stringify([t[t.length - 1]!.activity, '■']));
    for (let i = 1; i < t.length; i++) {
      const pair = JSON.stringify([t[i - 1]!.activity, t[i]!.activity]);
      if (!allowed.has(pair)) bad.add(pair);
    }
    if (bad.size === 0) fitting += 1;
    for (const b of bad) deviations.set(b, (deviations.get(b) ?? 0) + 1);
  }
  const top = [...deviations].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 20);
  return {
    cases,
    fitting,
    fitness: cases ? round(fitting / cases) : 1,
    deviations: top.map(([k, n]) => {
      const [from, to] = JSON.parse(k) as [string, string];
      return { from, to, cases: n };
    }),
  };
}

function casePage(traces: Iterable<Event[]>, q: CasePageQuery): CasePageAnswer {
  const want = q.path;
  const keep = want ? (t: Event[]) => t.length === want.length && t.every((e, i) => e.activity === want[i]) : (t: Event[]) => t[t.length - 1]!.activity === q.endActivity;
  const cases: CasePageAnswer['cases'] = [];
  let total = 0;
  // One pass: every match counted, only the asked page kept.
  for (const t of traces) {
    if (!keep(t)) continue;
    if (total >= q.offset && cases.length < q.limit) {
      cases.push({
        caseId: t[0]!.caseId,
        eventCount: t.length,
        events: t.slice(0, q.maxEvents).map((e) => {
          const { caseId: _caseId, ...rest } = toWire(e);
          return rest;
        }),
      });
    }
    total += 1;
  }
  return { total, cases };
}

/** The answer to one query over these cases (for a filter: the cases its scope keeps). */
export function answerCases(query: CaseQuery, traces: Iterable<Event[]>): Record<string, unknown> {
  switch (query.type) {
    case 'filter': {
      const { cases, events } = kpi(traces);
      return { cases, events };
    }
    case 'variants':
      return variants(traces, query.limit);
    case 'kpi':
      return kpi(traces);
    case 'conformance':
      return conformance(traces, query);
    case 'cases':
      return casePage(traces, query) as unknown as Record<string, unknown>;
    case 'live':
      throw new Error('the live query reads the counted state too: readCases answers it');
  }
}

import { z } from 'zod';
import type { Event } from '../event.js';
import type { ProjectState } from './state.js';
import { documentText, type Graphs } from './graphs.js';
import { scopedCases, scopeSchema, type Scope } from './scope.js';

/** Typed analysis steps. A filter narrows the blocks after it when a notebook runs. */
export const blockSpecSchema = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('filter'), scope: scopeSchema }).strict(),
    z.object({ type: z.literal('graph') }).strict(),
    z.object({ type: z.literal('variants'), limit: z.number().int().min(1).max(1000).default(10) }).strict(),
    z.object({ type: z.literal('kpi') }).strict(),
    z
      .object({
        type: z.literal('conformance'),
        allowedTransitions: z.array(z.tuple([z.string(), z.string()])).max(10_000).describe('directly-follows pairs the reference process allows'),
        startActivities: z.array(z.string()).max(1000).optional(),
        endActivities: z.array(z.string()).max(1000).optional(),
      })
      .strict(),
  ])
  .meta({ id: 'BlockSpec' });
export type BlockSpec = z.output<typeof blockSpecSchema>;

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

/** Runs one block over the cases the scopes keep. */
export async function runBlock(spec: BlockSpec, state: ProjectState, projectId: string, key: string, scopes: readonly Scope[], graphs: Graphs): Promise<Record<string, unknown>> {
  const traces = () => scopedCases(state, scopes);
  switch (spec.type) {
    case 'filter': {
      const { cases, events } = kpi(scopedCases(state, [...scopes, spec.scope]));
      return { cases, events };
    }
    case 'graph': {
      const served = scopes.length ? await graphs.inScope(projectId, key, scopes) : await graphs.current(projectId);
      return { dataVersion: served.dataVersion, etag: served.etag, document: JSON.parse(await documentText(served)) as unknown };
    }
    case 'variants':
      return variants(traces(), spec.limit);
    case 'kpi':
      return kpi(traces());
    case 'conformance':
      return conformance(traces(), spec);
  }
}

import { z } from 'zod';
import type { ProjectRegistry } from '../engine/projects/index.js';
import type { Catalog, SourceRecord } from './catalog/index.js';

/** A worker's report older than this is a worker that is gone (it re-reports every few seconds while it runs). */
export const STALE_STATUS_MS = 30_000;

const int = z.number().int();

export const sourceStatusSchema = z
  .object({
    state: z.enum(['running', 'starting', 'paused', 'failed', 'waiting']).describe('waiting: no worker runs it (PCG_SOURCES=off and no pcg worker)'),
    workers: z.array(z.object({ workerId: z.string(), state: z.string(), assigned: z.array(int), updatedAt: z.string() })),
    partitions: z.array(
      z.object({
        partition: int,
        storedOffset: int.nullable().describe('the last offset whose events are in the state'),
        committedOffset: int.nullable().describe("the group's committed offset (next to read), for lag reporting"),
        highWatermark: int.nullable(),
        lag: int.nullable(),
        eventsKept: int,
        deadLetters: int,
      }),
    ),
    eventsApplied: int.describe('events kept from this source'),
    deadLetters: int,
    lastError: z.object({ message: z.string(), at: z.string() }).nullable(),
    changelog: z
      .object({
        writtenRecords: int.describe('changelog records written after their chunk was applied'),
        restoredRecords: int.describe('changelog records read to restore partition states that lacked them'),
        restoredEvents: int.describe('events those records kept in the restored states'),
        republishedRecords: int.describe("records of a state's tail that had not reached the changelog, read again from the source topic and written"),
      })
      .nullable()
      .describe('summed over the workers running it now, each since it started; null when the changelog is off or no worker reported'),
  })
  .meta({ id: 'SourceStatus' });
export type SourceStatus = z.infer<typeof sourceStatusSchema>;

/**
 * A source's status: offsets, events and dead letters from its partition
 * states (the truth, whoever wrote them), and what the workers running it
 * last reported (assignment, the group's committed offsets, high watermarks,
 * errors) from the catalog.
 */
export function sourceStatus(ctx: { catalog: Pick<Catalog, 'sources'>; states: Pick<ProjectRegistry, 'partsOf'> }, source: SourceRecord, now = Date.now()): SourceStatus {
  const reports = ctx.catalog.sources.statuses(source.id).filter((r) => now - Date.parse(r.updatedAt) < STALE_STATUS_MS || r.workerId === 'catalog');
  const partitions = new Map<number, SourceStatus['partitions'][number]>();
  const at = (p: number) => {
    let s = partitions.get(p);
    if (!s) partitions.set(p, (s = { partition: p, storedOffset: null, committedOffset: null, highWatermark: null, lag: null, eventsKept: 0, deadLetters: 0 }));
    return s;
  };
  for (const { partition, store } of ctx.states.partsOf(source.projectId, source.id)) {
    const s = at(partition);
    s.storedOffset = store.position(source.id, partition) ?? null;
    s.eventsKept = store.eventCount();
    s.deadLetters = store.deadLetterCount(source.id);
  }
  let lastError: SourceStatus['lastError'] = null;
  for (const { status } of reports) {
    for (const p of status.partitions) {
      if (!status.assigned.includes(p.partition)) continue;
      const s = at(p.partition);
      s.committedOffset = p.committed;
      s.highWatermark = p.highWatermark;
      if (p.highWatermark !== null) s.lag = Math.max(0, p.highWatermark - (s.storedOffset ?? -1) - 1);
    }
    if (status.lastError && (!lastError || status.lastError.at > lastError.at)) lastError = status.lastError;
  }
  let changelog: SourceStatus['changelog'] = null;
  for (const { status } of reports) {
    if (!status.changelog) continue;
    changelog ??= { writtenRecords: 0, restoredRecords: 0, restoredEvents: 0, republishedRecords: 0 };
    for (const k of Object.keys(changelog) as (keyof typeof changelog)[]) changelog[k] += status.changelog[k] ?? 0;
  }
  const states = reports.map((r) => r.status.state);
  const state: SourceStatus['state'] = source.paused
    ? 'paused'
    : states.includes('running')
      ? 'running'
      : states.includes('starting')
        ? 'starting'
        : states.includes('failed')
          ? 'failed'
          : 'waiting';
  const list = [...partitions.values()].sort((a, b) => a.partition - b.partition);
  return {
    state,
    workers: reports.filter((r) => r.workerId !== 'catalog').map((r) => ({ workerId: r.workerId, state: r.status.state, assigned: r.status.assigned, updatedAt: r.updatedAt })),
    partitions: list,
    eventsApplied: list.reduce((n, p) => n + p.eventsKept, 0),
    deadLetters: list.reduce((n, p) => n + p.deadLetters, 0),
    lastError,
    changelog,
  };
}

import { describe, expect, it } from 'vitest';
import { inspectLog, openLog } from '../../connectors/files/index.js';
import { noPairing, pairTrace } from '../../connectors/files/lifecycle.js';
import { collect, scratch, utc } from './helpers.js';

/** A XES log of one trace, its events given as [activity, transition, time]. */
function xes(traces: [string, [string, string | undefined, string][]][]): string {
  const event = ([activity, transition, time]: [string, string | undefined, string]) =>
    `<event><string key="concept:name" value="${activity}"/>${transition === undefined ? '' : `<string key="lifecycle:transition" value="${transition}"/>`}<date key="time:timestamp" value="${time}"/></event>`;
  const trace = ([id, events]: [string, [string, string | undefined, string][]]) => `<trace><string key="concept:name" value="${id}"/>${events.map(event).join('')}</trace>`;
  return `<?xml version="1.0" encoding="UTF-8" ?><log xes.version="1.0">${traces.map(trace).join('')}</log>`;
}

describe('executions from lifecycle transitions', () => {
  it('pairs each start with the next closing transition of its activity, first in first out, and leaves marks out', () => {
    const t = (activity: string, transition: string | undefined, time: number) => ({ activity, transition, time });
    const counts = noPairing();
    const { keep, startOf } = pairTrace(
      [t('A', 'schedule', 0), t('A', 'start', 1), t('B', 'start', 2), t('A', 'start', 3), t('A', 'suspend', 4), t('A', 'complete', 5), t('B', 'complete', 6), t('A', 'ate_abort', 7), t('C', undefined, 8), t('D', 'start', 9)],
      counts,
    );
    expect(keep).toEqual([false, false, false, false, false, true, true, true, true, true]);
    // The first A start closes at the first A complete, the second at the abort.
    expect(startOf).toEqual([undefined, undefined, undefined, undefined, undefined, 1, 2, 3, undefined, undefined]);
    expect(counts).toEqual({ paired: 3, unpairedStarts: 1, dropped: 2, unpairedTraces: 0 });
  });

  it('leaves a trace alone when its transitions are not the standard model (statuses kept in the column)', () => {
    const counts = noPairing();
    const trace = [
      { activity: 'Queued', transition: 'awaiting assignment', time: 0 },
      { activity: 'Accepted', transition: 'start', time: 1 },
      { activity: 'Accepted', transition: 'in progress', time: 2 },
    ];
    expect(pairTrace(trace, counts)).toEqual({ keep: [true, true, true], startOf: [undefined, undefined, undefined] });
    expect(counts.unpairedTraces).toBe(1);
  });

  it('imports a start/complete log as one event per execution, with the start as its start_timestamp', async () => {
    const s = scratch();
    const path = s.file(
      'pairs.xes',
      xes([
        [
          'c1',
          [
            ['Register', 'start', '2024-01-01T08:00:00Z'],
            ['Register', 'complete', '2024-01-01T08:20:00Z'],
            ['Check', 'schedule', '2024-01-01T08:30:00Z'],
            ['Check', 'start', '2024-01-01T09:00:00Z'],
            ['Check', 'complete', '2024-01-01T10:00:00Z'],
            ['Check', 'start', '2024-01-01T11:00:00Z'],
            ['Check', 'complete', '2024-01-01T11:30:00Z'],
          ],
        ],
        // Events written out of time order: paired in case order, not file order.
        ['c2', [['Pay', 'complete', '2024-01-02T10:00:00Z'], ['Pay', 'start', '2024-01-02T09:00:00Z'], ['Archive', 'start', '2024-01-02T12:00:00Z']]],
      ]),
    );
    const { records } = await collect(await openLog(path));
    expect(records.map((r) => [r.caseId, r.activity, r.timestamp, (r.attributes as Record<string, unknown> | undefined)?.start_timestamp])).toEqual([
      ['c1', 'Register', utc('2024-01-01T08:20:00Z'), '2024-01-01T08:00:00.000Z'],
      ['c1', 'Check', utc('2024-01-01T10:00:00Z'), '2024-01-01T09:00:00.000Z'],
      ['c1', 'Check', utc('2024-01-01T11:30:00Z'), '2024-01-01T11:00:00.000Z'],
      ['c2', 'Pay', utc('2024-01-02T10:00:00Z'), '2024-01-02T09:00:00.000Z'],
      // Begun, never completed in the log: an event of its own.
      ['c2', 'Archive', utc('2024-01-02T12:00:00Z'), undefined],
    ]);
    // Check is done twice (real rework); Register once.
    expect(await inspectLog(path)).toMatchObject({ events: 5, lifecycle: 'pair', lifecycle_paired: 4, lifecycle_unpaired_starts: 1, lifecycle_dropped: 1 });
    // Every transition a step, on request.
    expect((await collect(await openLog(path, { lifecycle: 'all' }))).records).toHaveLength(10);
  });
});

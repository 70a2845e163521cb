import { describe, expect, it } from 'vitest';
import { importLog, inspectLog, openLog } from '../../connectors/files/index.js';
import { collect, scratch } from './helpers.js';

const lines = [
  '{"caseId":"c1","activity":"A","timestamp":"2024-01-01T00:00:00Z","eventId":"e1"}',
  '',
  '{"caseId":"c1","activity":"B","timestamp":"2024-01-01T01:00:00Z","resource":"ann"}',
  '{"caseId":"c1", broken',
  '{"caseId":"c2","activity":"A","timestamp":"not a time"}',
  '{"caseId":"c2","activity":"A","timestamp":1704067200000,"attributes":{"n":1}}',
  '{"caseId":"c1","activity":"A","timestamp":"2024-01-01T00:00:00Z","eventId":"e1"}',
].join('\n');

describe('NDJSON reader', () => {
  it('passes wire events through and rejects lines that are not JSON, with their number', async () => {
    const s = scratch();
    for (const gzip of [false, true]) {
      const source = await openLog(s.file(gzip ? 'e.ndjson.gz' : 'e.ndjson', lines, { gzip }));
      expect(source.format).toBe('ndjson');
      const { records, locations, rejected } = await collect(source);
      expect(records).toHaveLength(5);
      expect(records[1]).toEqual({ caseId: 'c1', activity: 'B', timestamp: '2024-01-01T01:00:00Z', resource: 'ann' });
      expect(locations).toEqual(['line 1', 'line 3', 'line 5', 'line 6', 'line 7']);
      expect(rejected.map((r) => [r.location, r.payload])).toEqual([['line 4', '{"caseId":"c1", broken']]);
      expect(rejected[0]!.reason).toMatch(/^not JSON: /);
    }
  });

  it('counts like the store: invalid events rejected at their line, repeated ids once', async () => {
    const s = scratch();
    const path = s.file('e.ndjson', lines);
    const summary = await inspectLog(path);
    expect(summary).toMatchObject({ format: 'ndjson', case_notion: 'caseId', cases: 2, events: 3, activities: 2, variants: 2, rejected: 2 });
    expect(summary.rejections).toEqual([
      { location: 'line 4', reason: expect.stringMatching(/^not JSON/) },
      { location: 'line 5', reason: 'timestamp: expected an ISO 8601 time or epoch milliseconds' },
    ]);
    const store = s.store();
    const r = await importLog(store, path);
    expect(r).toMatchObject({ accepted: 3, duplicates: 1, rejected: 2, cases: 2, events: 3 });
    expect(store.deadLetters().map((d) => [d.location, d.reason])).toEqual([
      ['line 4', expect.stringMatching(/^not JSON/)],
      ['line 5', 'timestamp: expected an ISO 8601 time or epoch milliseconds'],
    ]);
  });

  it('reads a file whose first event has no timestamp as order only: file order, repeats kept apart, a timed event refused', async () => {
    const s = scratch();
    const untimed = [
      '{"caseId":"c1","activity":"A"}',
      '{"caseId":"c2","activity":"A"}',
      '{"caseId":"c1","activity":"B"}',
      '{"caseId":"c1","activity":"B"}',
      '{"caseId":"c2","activity":"B","timestamp":"2024-01-01T00:00:00Z"}',
      '{"caseId":"c2","activity":"C","eventId":"mine"}',
    ].join('\n');
    const path = s.file('order.ndjson', `${untimed}\n`);
    const summary = await inspectLog(path);
    expect(summary).toMatchObject({ cases: 2, events: 5, variants: 2, period_start: null, period_end: null, rejected: 1, times: expect.stringMatching(/^none: /) });
    expect(summary.rejections).toEqual([{ location: 'line 5', reason: 'timestamp: a time on an event of a log whose first event has none (read as order only)' }]);
    const store = s.store();
    expect(await importLog(store, path)).toMatchObject({ accepted: 5, rejected: 1 });
    expect([...store.traces()].map((t) => t.map((e) => [e.activity, e.time]))).toEqual([
      [['A', 0], ['B', 0], ['B', 0]],
      [['A', 0], ['C', 0]],
    ]);
    // A file that begins with a time needs one on every event, as before.
    const timed = await collect(await openLog(s.file('timed.ndjson', '{"caseId":"c1","activity":"A","timestamp":1}\n{"caseId":"c1","activity":"B"}\n')));
    expect(timed.records).toEqual([{ caseId: 'c1', activity: 'A', timestamp: 1 }, { caseId: 'c1', activity: 'B' }]);
  });
});

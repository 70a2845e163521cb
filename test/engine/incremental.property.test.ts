import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkEvent, compareEvents, edgeKey, exactQuantile, PROFILE_KINDS, quantile, recompute, RELATIVE_ERROR, splitProfileKey, tallyToJson, type Event, type Tally, type WireEvent } from '../../engine/index.js';
import { join } from 'node:path';
import { ProjectStore } from '../../engine/index.js';
import { batchesOf, freshDir, freshStore } from './helpers.js';

/**
 * The engine's key property: whatever the arrival (duplicates, shuffles,
 * replayed batches, any batch split), the stored state equals a from-scratch
 * recomputation of the distinct events.
 */
const T0 = Date.UTC(2025, 0, 1);
const activities = ['a', 'b', 'c', 'd', 'e'];
/** Added to whole hours: a whole hour, milliseconds, a whole minute, a whole second. */
const GRAIN_OFFSETS = [0, 17, 60_000, 7_000];
/**
 * Attributes the log profile reads: lifecycle transitions (standard, odd, blank), starts before and
 * after their event or unreadable (ISO text and epoch milliseconds), date-like text before and after it
 * (and an impossible date), a status that changes within a case, and a case attribute holding the
 * identifier of a larger case (counted on the first event only), a time (never one) and a category.
 */
const PROFILED = {
  'lifecycle:transition': fc.constantFrom('start', 'complete', ' Complete ', 'RESOLVED', ' '),
  start_timestamp: fc.constantFrom(T0 - 5_000, T0 + 20 * 3_600_000 + 250, '2025-01-01T10:30:00Z', '2025-01-02 02:00', 'soon'),
  resolved_at: fc.constantFrom('2025-01-02T10:00:00.000Z', '2025-01-01 03:00', '2025-02-30T00:00:00Z', '20250101'),
  status: fc.constantFrom('open', 'pending', 'closed'),
  'case:app': fc.constantFrom('Application_1001', 'Application_1002', '2025-01-01T10:30:00Z', 'web'),
};

const eventOf = (caseIds: string[], eventIds: string[]) => fc.record({
  caseId: fc.constantFrom(...caseIds),
  activity: fc.constantFrom(...activities),
  // Coarse times make ties common, which exercises the key-based tie order; whole hours, milliseconds, whole minutes and whole seconds (the profile's grains).
  timestamp: fc.integer({ min: 0, max: 40 }).map((m) => T0 + m * 3_600_000 + GRAIN_OFFSETS[m % 4]!),
  eventId: fc.option(fc.constantFrom(...eventIds), { nil: undefined }),
  resource: fc.option(fc.constantFrom('ann', 'bob'), { nil: undefined }),
  // Attributes feed the decision counters (numbers binned, short strings), the role counters (org:group) and the log profile.
  attributes: fc.option(fc.record({ amount: fc.constantFrom(3, 40, 700, 25.5), region: fc.constantFrom('north', 'south'), 'org:group': fc.constantFrom('desk', 'back office', ''), ...PROFILED }, { requiredKeys: [] }), {
    nil: undefined,
  }),
  objects: fc.option(fc.array(fc.record({ id: fc.constantFrom('o1', 'o2'), type: fc.constantFrom('order', 'item') }), { maxLength: 2 }), { nil: undefined }),
});

const clean = (e: { eventId?: string | undefined; resource?: string | undefined; attributes?: object | undefined; objects?: unknown[] | undefined }): WireEvent => {
  const out: Record<string, unknown> = { ...e };
  for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k];
  return out as WireEvent;
};

const scenarioOf = (caseIds: string[], eventIds: string[], maxLength: number, minLength = 1) => fc
  .array(eventOf(caseIds, eventIds), { minLength, maxLength })
  .map((es) => es.map(clean))
  .chain((log) =>
    fc.record({
      log: fc.constant(log),
      // Arrival: a shuffle of the log with some events repeated.
      arrival: fc.shuffledSubarray([...log, ...log.slice(0, Math.ceil(log.length / 3))], { minLength: log.length + Math.ceil(log.length / 3) }),
      cuts: fc.array(fc.integer({ min: 1, max: 60 }), { maxLength: 6 }),
      replays: fc.array(fc.nat(), { maxLength: 3 }),
    }),
  );
// Few ids and coarse times, so that repeats and ties are common.
const scenario = scenarioOf(['c1', 'c2', 'c3', 'c4', 'c5', 'c6'], ['e1', 'e2', 'e3', 'e4', 'e5', 'e6', 'e7', 'e8'], 40);
/** Two cases of ~40-60 distinct events: past the length at which a fold keeps a visit map. */
const longCases = scenarioOf(['c1', 'c2'], Array.from({ length: 400 }, (_, i) => `e${i}`), 120, 80);

describe('incremental state == from-scratch recomputation', () => {
  // Without a case cache every touched case is read back from its rows; with one, appends continue the cached fold.
  // Restarting drops every in-memory copy (key index, folds, mirrors of pending changes), so the next batch works from
  // the file alone: alternately after a clean close (pending changes merged) and as after a crash (left pending).
  it.each([
    ['with the case cache, merging after 12 pending changes', { cacheCases: 100_000, mergeAfter: 12 }, false],
    ['reading every case from SQLite', { cacheCases: 0 }, false],
    ['with counter ids renumbered between most batches, merging after 6 pending changes', { cacheCases: 100_000, maxCounterIds: 8, mergeAfter: 6 }, false],
    ['with a two-case cache, merging after 6 pending changes, restarted between batches', { cacheCases: 2, mergeAfter: 6 }, true],
    ['with merges deferred (settled after every third batch, else merged once overdue), merging after 3 pending changes', { cacheCases: 100_000, mergeAfter: 3, deferMerges: true }, false],
    ['with merges deferred and a two-case cache, restarted between batches', { cacheCases: 2, mergeAfter: 3, deferMerges: true }, true],
    ['with a two-case cache, the folds it gives up kept as text and restored', { cacheCases: 2, coldFoldBytes: 1 << 20 }, false],
    ['with a two-case cache, text for a few folds only, counter ids renumbered', { cacheCases: 2, coldFoldBytes: 2500, maxCounterIds: 8 }, false],
    ['with a two-case cache and no folds kept as text', { cacheCases: 2, coldFoldBytes: 0 }, false],
    ['with long cases', { cacheCases: 100_000 }, false, longCases],
    ['with long cases and a one-case cache, the folds it gives up kept as text', { cacheCases: 1, coldFoldBytes: 1 << 20 }, false, longCases],
  ])('under duplicates, shuffles, replays and any batch split (%s)', (_, options, restart, logs = scenario) => {
    const met = new Set<string>();
    fc.assert(
      fc.property(logs, ({ log, arrival, cuts, replays }) => {
        const file = join(freshDir(), 'state.sqlite');
        let store = ProjectStore.open(file, options);
        const batches = batchesOf(arrival, cuts);
        batches.forEach((batch, i) => {
          if (restart && i % 2 === 1) {
            if (i % 4 === 1) store.close();
            else store.db.close();
            store = ProjectStore.open(file, options);
          }
          store.apply({ records: batch }, { source: 's', partition: 0, offset: i });
          // A store that defers merges runs the due ones here; one that does not has none due.
          if (i % 3 === 2) store.settle();
          // A replayed earlier position must change nothing.
          for (const r of replays) {
            if (i > 0) store.apply({ records: batches[r % i]! }, { source: 's', partition: 0, offset: r % i });
          }
        });
        // Re-sending everything without a position is absorbed by de-duplication.
        store.apply({ records: log });
        const incremental = store.snapshot();
        const oracle = recompute(log);
        expect(tallyToJson(incremental.tally)).toEqual(tallyToJson(oracle));
        profileMet(oracle, met);
        store.close();
      }),
      { numRuns: 150 },
    );
    // The logs met every kind of the profile, and every grain: the comparison above covered them.
    expect([...met].sort()).toEqual([...PROFILE_KINDS, 'grain:h', 'grain:min', 'grain:ms', 'grain:s', 'service'].sort());
  });

  it('gives the same log digest and state for any arrival order', () => {
    fc.assert(
      fc.property(scenario, ({ log, arrival }) => {
        const a = freshStore();
        const b = freshStore();
        a.apply({ records: log });
        for (const e of arrival) b.apply({ records: [e] });
        b.apply({ records: log });
        expect(b.snapshot().logDigest).toBe(a.snapshot().logDigest);
        expect(tallyToJson(b.snapshot().tally)).toEqual(tallyToJson(a.snapshot().tally));
        a.close();
        b.close();
      }),
      { numRuns: 60 },
    );
  });

  it('keeps every wait quantile within the sketch error of the exact value', () => {
    const waitsArb = fc.array(fc.integer({ min: 0, max: 90 * 86_400_000 }), { minLength: 1, maxLength: 60 });
    fc.assert(
      fc.property(waitsArb, fc.constantFrom(0.1, 0.5, 0.9, 0.99), (waits, q) => {
        const store = freshStore();
        // One case a-b per wait, so edge a→b holds exactly these waits.
        const records = waits.flatMap((w, i) => [
          // Ids order a before b when the wait is zero (ties go by key).
          { caseId: `c${i}`, activity: 'a', timestamp: T0, eventId: `${i}-1` },
          { caseId: `c${i}`, activity: 'b', timestamp: T0 + w, eventId: `${i}-2` },
        ]);
        store.apply({ records: records.reverse() });
        const sketch = store.snapshot().tally.edges.get(edgeKey('a', 'b'))!.wait;
        const exact = exactQuantile(waits, q);
        const got = quantile(sketch, q);
        if (exact < 1) expect(got).toBe(0);
        else expect(Math.abs(got - exact) / exact).toBeLessThanOrEqual(RELATIVE_ERROR + 1e-9);
        store.close();
      }),
      { numRuns: 200 },
    );
  });

  it('orders ties by key so arrival order cannot change a trace', () => {
    const es = [
      { caseId: 'c', activity: 'x', timestamp: T0, eventId: '2' },
      { caseId: 'c', activity: 'y', timestamp: T0, eventId: '1' },
    ].map((w) => (checkEvent(w) as { ok: true; event: Event }).event);
    expect([...es].sort(compareEvents).map((e) => e.activity)).toEqual(['y', 'x']);
    expect([...es].reverse().sort(compareEvents).map((e) => e.activity)).toEqual(['y', 'x']);
  });
});

/** Adds the profile kinds a tally holds to `met` (grains by value, service times as 'service'). */
function profileMet(t: Tally, met: Set<string>): void {
  for (const key of t.profile.keys()) {
    const { kind, a } = splitProfileKey(key);
    met.add(kind);
    if (kind === 'grain') met.add(`grain:${a}`);
  }
  if (t.serviceTime.size) met.add('service');
}

import fc from 'fast-check';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkEvent, compareEvents, contribution, PROFILE_KINDS, ProjectStore, recomputeTraces, splitProfileKey, tallyToJson, type Event, type WireEvent } from '../../engine/index.js';
import { CaseFold } from '../../engine/contribution.js';
import { Counters, tallyFromRows } from '../../engine/store/codec.js';
import { KeyBook } from '../../engine/store/counter-keys.js';
import { batchesOf, freshDir } from './helpers.js';

/**
 * Retention's key property: pruning keeps every count. A pruned store equals the from-scratch
 * oracle of the same events, where each event written to a pruned case at or before that case's latest
 * pruned event is moved right after its pruned events (applied without re-sequencing), and equals an
 * unpruned store fed the same batches when no such event came and no pruned event's key came again
 * (its event, or another body under its key, is a new event once pruned); `late_unsequenced` counts
 * the moved.
 */
const T0 = Date.UTC(2025, 0, 1);
const HOUR = 3_600_000;
const activities = ['a', 'b', 'c', 'd', 'e'];
/** Added to whole hours: a whole hour, milliseconds, a whole minute, a whole second (the profile's grains). */
const GRAIN_OFFSETS = [0, 17, 60_000, 7_000];
/** Attributes the log profile reads (see incremental.property.test.ts): transitions, starts, date-like text, a status that changes. */
const PROFILED = {
  'lifecycle:transition': fc.constantFrom('start', 'complete', ' Complete ', 'RESOLVED', ' '),
  start_timestamp: fc.constantFrom(T0 - 5_000, T0 + 20 * HOUR + 250, '2025-01-01T10:30:00Z', '2025-01-02 02:00', 'soon'),
  resolved_at: fc.constantFrom('2025-01-02T10:00:00.000Z', '2025-01-01 03:00', '2025-02-30T00:00:00Z', '20250101'),
  status: fc.constantFrom('open', 'pending', 'closed'),
};

const eventOf = (caseIds: string[], eventIds: string[]) =>
  fc.record({
    caseId: fc.constantFrom(...caseIds),
    activity: fc.constantFrom(...activities),
    timestamp: fc.integer({ min: 0, max: 40 }).map((m) => T0 + m * HOUR + GRAIN_OFFSETS[m % 4]!),
    eventId: fc.option(fc.constantFrom(...eventIds), { nil: undefined }),
    resource: fc.option(fc.constantFrom('ann', 'bob'), { nil: undefined }),
    attributes: fc.option(fc.record({ amount: fc.constantFrom(3, 40, 700), region: fc.constantFrom('north', 'south'), 'org:group': fc.constantFrom('desk', 'back office'), ...PROFILED }, { requiredKeys: [] }), { nil: undefined }),
    objects: fc.option(fc.array(fc.record({ id: fc.constantFrom('o1', 'o2'), type: fc.constantFrom('order', 'item') }), { maxLength: 2 }), { nil: undefined }),
  });

const clean = (e: Record<string, unknown>): WireEvent => {
  const out: Record<string, unknown> = { ...e };
  for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k];
  return out as unknown as WireEvent;
};

const scenarioOf = (caseIds: string[], eventIds: string[], maxLength: number, minLength = 1, shift = 0) =>
  fc
    .array(eventOf(caseIds, eventIds), { minLength, maxLength })
    .map((es) => es.map((e) => clean({ ...e, timestamp: e.timestamp + caseIds.indexOf(e.caseId) * shift * HOUR })))
    .chain((log) =>
      fc.record({
        // Arrival: a shuffle with a third sent again, so some repeats come after their original was pruned.
        arrival: fc.shuffledSubarray([...log, ...log.slice(0, Math.ceil(log.length / 3))], { minLength: log.length + Math.ceil(log.length / 3) }),
        cuts: fc.array(fc.integer({ min: 1, max: 80 }), { maxLength: 8 }),
        prunes: fc.array(fc.nat(), { minLength: 1, maxLength: 4 }),
        keepHours: fc.constantFrom(1, 4, 10, 25),
      }),
    );
const scenario = scenarioOf(['c1', 'c2', 'c3', 'c4', 'c5', 'c6'], ['e1', 'e2', 'e3', 'e4', 'e5', 'e6', 'e7', 'e8', 'e9', 'e10'], 50);
/** Two cases of ~40-60 distinct events (past the length at which a fold keeps a visit map), the second 30 hours after the first. */
const longCases = scenarioOf(['c1', 'c2'], Array.from({ length: 400 }, (_, i) => `e${i}`), 120, 80, 30);

const valid = (w: WireEvent): Event => (checkEvent(w) as { ok: true; event: Event }).event;

/**
 * The rule, written out over plain arrays: what the store keeps (one body per key, the smallest
 * digest), each pruned case's counted events in the order they are counted, and the moved events.
 */
class Model {
  readonly kept = new Map<string, Event>();
  readonly pruned = new Map<string, Event[]>();
  /** Keys of pruned events: one coming again is a new event (no longer recognised), moved or not. */
  readonly prunedKeys = new Set<string>();
  late = 0;
  resent = 0;

  apply(batch: WireEvent[]): void {
    const incoming = new Map<string, Event>();
    for (const w of batch) {
      const e = valid(w);
      const seen = incoming.get(e.key);
      if (!seen || e.digest < seen.digest) incoming.set(e.key, e);
    }
    for (const e of incoming.values()) {
      const kept = this.kept.get(e.key);
      if (kept && kept.digest <= e.digest) continue;
      this.kept.set(e.key, e);
      if (!kept && this.prunedKeys.has(e.key)) this.resent += 1;
      const before = this.pruned.get(e.caseId);
      if (before && compareEvents(e, [...before].sort(compareEvents).at(-1)!) <= 0) this.late += 1;
    }
  }

  prune(keepMs: number): void {
    const all = [...this.kept.values(), ...[...this.pruned.values()].flat()];
    if (all.length === 0) return;
    const horizon = Math.max(...all.map((e) => e.time)) - keepMs;
    for (const [caseId, events] of this.byCase()) {
      const counted = [...events, ...(this.pruned.get(caseId) ?? [])];
      if (Math.max(...counted.map((e) => e.time)) >= horizon) continue;
      this.pruned.set(caseId, [...(this.pruned.get(caseId) ?? []), ...events.sort(compareEvents)]);
      for (const e of events) {
        this.kept.delete(e.key);
        this.prunedKeys.add(e.key);
      }
    }
  }

  private byCase(): Map<string, Event[]> {
    const cases = new Map<string, Event[]>();
    for (const e of this.kept.values()) cases.set(e.caseId, [...(cases.get(e.caseId) ?? []), e]);
    return cases;
  }

  /** Every case's events as counted: its pruned ones, then its kept ones in case order. */
  traces(): Event[][] {
    const cases = this.byCase();
    const ids = new Set([...cases.keys(), ...this.pruned.keys()]);
    return [...ids].map((id) => [...(this.pruned.get(id) ?? []), ...(cases.get(id) ?? []).sort(compareEvents)]);
  }
}

/** Snapshot fields that must not depend on pruning. */
const comparable = (store: ProjectStore) => {
  const s = store.snapshot();
  const { pruned_events: _p, event_id_floor: _f, late_unsequenced: _l, ...meta } = s.meta;
  return { tally: tallyToJson(s.tally), dataVersion: s.dataVersion, logDigest: s.logDigest, periodStart: s.periodStart, periodEnd: s.periodEnd, meta, caseIds: [...store.caseIds()].sort() };
};

describe('retention: pruned state == oracle with late events moved after the pruned ones', () => {
  it.each([
    ['with the case cache, merging after 12 pending changes', { cacheCases: 100_000, mergeAfter: 12 }, 'same'],
    ['reading every case from SQLite', { cacheCases: 0 }, 'same'],
    ['with counter ids renumbered between most batches', { cacheCases: 100_000, maxCounterIds: 8, mergeAfter: 6 }, 'same'],
    ['restarted after every prune', { cacheCases: 2, mergeAfter: 6 }, 'restart'],
    ['with a two-case cache, the folds it gives up (pruned cases too) kept as text', { cacheCases: 2, coldFoldBytes: 1 << 20 }, 'same'],
    ['pruned by a second connection while the first writes', { cacheCases: 100_000, mergeAfter: 12 }, 'other'],
    ['with long cases', { cacheCases: 100_000 }, 'same', longCases],
    ['with long cases and a one-case cache, the folds it gives up (pruned cases too) kept as text', { cacheCases: 1, coldFoldBytes: 1 << 20 }, 'same', longCases],
  ] as const)('under late events, re-sent events and prunes at random points (%s)', (_, options, pruner, logs = scenario) => {
    let moved = 0;
    let unmoved = 0;
    let longFolds = 0;
    const kinds = new Set<string>();
    fc.assert(
      fc.property(logs, ({ arrival, cuts, prunes, keepHours }) => {
        const dir = freshDir();
        const file = join(dir, 'pruned.sqlite');
        let store = ProjectStore.open(file, options);
        const other = pruner === 'other' ? ProjectStore.open(file, options) : undefined;
        const plain = ProjectStore.open(join(dir, 'plain.sqlite'), options);
        const model = new Model();
        const batches = batchesOf(arrival, cuts);
        const at = new Set(prunes.map((p) => p % batches.length));
        batches.forEach((batch, i) => {
          store.apply({ records: batch }, { source: 's', partition: 0, offset: i });
          plain.apply({ records: batch }, { source: 's', partition: 0, offset: i });
          model.apply(batch);
          if (!at.has(i)) return;
          (other ?? store).prune(keepHours * HOUR, 2);
          model.prune(keepHours * HOUR);
          if (pruner === 'restart') {
            store.close();
            store = ProjectStore.open(file, options);
          }
        });
        expect(store.eventCount()).toBe(model.kept.size);
        // A fold past 32 events keeps a visit map: restored from the table, it must count on the same.
        if ((store.db.prepare('SELECT max(events) FROM case_fold').pluck().get() as number | null ?? 0) > 32) longFolds += 1;
        expect(Number(store.getMeta('late_unsequenced') ?? 0)).toBe(model.late);
        const oracle = recomputeTraces(model.traces());
        expect(tallyToJson(store.snapshot().tally)).toEqual(tallyToJson(oracle));
        for (const key of oracle.profile.keys()) kinds.add(splitProfileKey(key).kind);
        if (oracle.serviceTime.size) kinds.add('service');
        // With none moved and no pruned key sent again (same or other body: a new event now), pruning changed nothing.
        if (model.late === 0 && model.resent === 0) {
          unmoved += 1;
          expect(comparable(store)).toEqual(comparable(plain));
        } else moved += 1;
        other?.close();
        store.close();
        plain.close();
      }),
      { numRuns: logs === longCases ? 25 : 120 },
    );
    // Both outcomes were met, so both halves of the property were checked (long cases nearly always meet a moved event).
    expect(moved).toBeGreaterThan(5);
    if (logs !== longCases) expect(unmoved).toBeGreaterThan(5);
    else expect(longFolds).toBeGreaterThan(5);
    // Every kind of the log profile was met, so the comparison covered them.
    expect([...kinds].sort()).toEqual([...PROFILE_KINDS, 'service'].sort());
  });
});

describe('CaseFold.toJSON / restore', () => {
  const traceArb = fc.array(eventOf(['c1'], Array.from({ length: 100 }, (_, i) => `e${i}`)), { minLength: 1, maxLength: 60 }).map((es) => {
    const byKey = new Map(es.map((w) => valid(clean(w))).map((e) => [e.key, e]));
    return [...byKey.values()].sort(compareEvents);
  });

  it('continues a fold in another book exactly as the fold itself would', () => {
    fc.assert(
      fc.property(traceArb, fc.nat(), (trace, cut) => {
        const k = 1 + (cut % trace.length);
        const first = new Counters(new KeyBook());
        const fold = new CaseFold(first.book);
        for (const e of trace.slice(0, k)) fold.step(e, first, 1);
        const state = JSON.parse(JSON.stringify(fold.toJSON()));
        // The derivation of the implied once-per-case counters held: nothing had to be listed whole.
        expect(state.all).toBeUndefined();
        const rest = new Counters(new KeyBook());
        const restored = CaseFold.restore(state, rest.book);
        expect(restored.size).toBe(k);
        for (const e of trace.slice(k)) restored.step(e, rest, 1);
        restored.finish(rest, 1);
        // first holds steps 1..k and the ending at k, rest the steps after and the whole case's ending: less the ending at k, the whole case.
        const endingAtK = new Counters(new KeyBook());
        CaseFold.restore(state, endingAtK.book).finish(endingAtK, 1);
        fold.finish(first, 1);
        const whole = tallyFromRows([...first.rows(), ...rest.rows(), ...[...endingAtK.rows()].map((r) => ({ ...r, n: -r.n }))]);
        expect(tallyToJson(whole)).toEqual(tallyToJson(contribution(trace)));
        expect(normal(restored.toJSON())).toEqual(normal(continued(trace)));
      }),
      { numRuns: 300 },
    );
  });
});

/** A fold state with its listed counters in one order (a restored fold meets them in another). */
const normal = (state: ReturnType<CaseFold['toJSON']>) => ({ ...state, s: state.s?.map((x) => JSON.stringify(x)).sort() });

/** The state of a fold stepped over the whole trace in one book. */
function continued(trace: Event[]) {
  const c = new Counters(new KeyBook());
  const fold = new CaseFold(c.book);
  for (const e of trace) fold.step(e, c, 1);
  return fold.toJSON();
}

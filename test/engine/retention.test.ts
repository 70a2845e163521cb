import Database from 'better-sqlite3';
import fc from 'fast-check';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { simulate } from '../../connectors/simulator/index.js';
import { buildDocument } from '../../engine/document/index.js';
import { checkEvent, compareEvents, EngineError, ProjectStore, recomputeTraces, tallyToJson, type Event, type WireEvent } from '../../engine/index.js';
import { mergedState, ProjectRegistry } from '../../engine/projects/index.js';
import { KeyIndex } from '../../engine/store/key-index.js';
import { freshDir, freshStore } from './helpers.js';

/** Retention in the store (engine/store/retention.ts) and over a project's stores (engine/projects/retention.ts). */
const T0 = Date.UTC(2025, 0, 1);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const at = (caseId: string, activity: string, ms: number, eventId?: string, extra: object = {}) => ({
  caseId,
  activity,
  timestamp: new Date(T0 + ms).toISOString(),
  ...(eventId ? { eventId } : {}),
  ...extra,
});
const valid = (w: object): Event => (checkEvent(w) as { ok: true; event: Event }).event;
const variants = (store: ProjectStore) => Object.fromEntries(store.snapshot().tally.variants);

/** A simulated log in time order (no late arrival), in batches of 200. */
function timeOrdered(cases: number, seed: number): WireEvent[][] {
  const events = [...simulate({ model: 'order-to-cash', cases, seed })].sort((a, b) => Date.parse(String(a.timestamp)) - Date.parse(String(b.timestamp)));
  const batches: WireEvent[][] = [];
  for (let i = 0; i < events.length; i += 200) batches.push(events.slice(i, i + 200));
  return batches;
}

describe('a pruned project', () => {
  it('serves the document an unpruned one does, until an event comes for a pruned case at or before its pruned events', () => {
    const pruned = freshStore();
    const plain = freshStore();
    const batches = timeOrdered(400, 7);
    batches.forEach((batch, i) => {
      pruned.apply({ records: batch }, { source: 'feed', partition: 0, offset: i });
      plain.apply({ records: batch }, { source: 'feed', partition: 0, offset: i });
      pruned.prune(20 * DAY, 50);
    });
    const stats = pruned.allMeta();
    expect(Number(stats.pruned_events)).toBeGreaterThan(1000);
    expect(pruned.eventCount()).toBeLessThan(plain.eventCount() - 1000);
    expect(stats.late_unsequenced).toBeUndefined();
    // Byte for byte, data version included: pruning changed nothing counted.
    expect(JSON.stringify(buildDocument(pruned.snapshot()))).toBe(JSON.stringify(buildDocument(plain.snapshot())));
    expect([...pruned.caseIds()].sort()).toEqual([...plain.caseIds()].sort());

    // An event of a pruned case sent again: no longer recognised, it counts again, after the case's pruned events.
    const first = batches[0]![0]!;
    expect(plain.apply({ records: [first] }).duplicates).toBe(1);
    const again = pruned.apply({ records: [first] });
    expect(again.accepted).toBe(1);
    expect(pruned.getMeta('late_unsequenced')).toBe('1');
    const doc = buildDocument(pruned.snapshot());
    const note = doc.assumptions.filter((a) => typeof a === 'string' && a.includes('older events had been pruned'));
    expect(note).toHaveLength(1);
    expect(note[0]).toMatch(/^Data quality: 1 event arrived for cases whose older events had been pruned .* one sent again is counted again/);
    expect(pruned.snapshot().tally.events).toBe(plain.snapshot().tally.events + 1);
    // Everything else of the document as it was but for the counts that event moved.
    const plainDoc = buildDocument(plain.snapshot());
    expect(doc.assumptions.filter((a) => a !== note[0]).length).toBe(plainDoc.assumptions.length);
  });

  it('steps a late event after the pruned ones without re-sequencing, and keeps the kept ones in order', () => {
    const store = freshStore();
    store.apply({ records: [at('c1', 'a', 0, '1'), at('c1', 'b', HOUR, '2'), at('c1', 'c', 2 * HOUR, '3'), at('c2', 'a', 30 * DAY, '4')] });
    expect(store.prune(7 * DAY)).toEqual({ cases: 1, events: 3 });
    expect(store.eventCount()).toBe(1);
    const counted = [valid(at('c1', 'a', 0, '1')), valid(at('c1', 'b', HOUR, '2')), valid(at('c1', 'c', 2 * HOUR, '3'))];
    // Between a and b: counted after c.
    const x = at('c1', 'x', HOUR / 2, '5');
    store.apply({ records: [x] });
    expect(variants(store)).toEqual({ '["a","b","c","x"]': 1, '["a"]': 1 });
    expect(store.getMeta('late_unsequenced')).toBe('1');
    // After every pruned event: an append, not counted; the kept ones in time order among themselves.
    const y = at('c1', 'y', 3 * HOUR, '6');
    store.apply({ records: [y] });
    expect(store.getMeta('late_unsequenced')).toBe('1');
    const y2 = at('c1', 'z', 90 * 60_000, '7');
    store.apply({ records: [y2] });
    expect(store.getMeta('late_unsequenced')).toBe('2');
    const kept = [valid(x), valid(y), valid(y2)].sort(compareEvents);
    expect(variants(store)).toEqual({ '["a","b","c","x","z","y"]': 1, '["a"]': 1 });
    expect(tallyToJson(store.snapshot().tally)).toEqual(tallyToJson(recomputeTraces([[...counted, ...kept], [valid(at('c2', 'a', 30 * DAY, '4'))]])));
    // A replaced body of a kept event of the pruned case is compared as ever (the key is still known).
    expect(store.apply({ records: [at('c1', 'y', 3 * HOUR, '6')] }).duplicates).toBe(1);
    // Pruned again: the counted order is the fold's, and a later append continues it.
    expect(store.prune(7 * DAY)).toEqual({ cases: 1, events: 3 });
    store.apply({ records: [at('c1', 'w', 4 * HOUR, '8')] });
    expect(variants(store)).toEqual({ '["a","b","c","x","z","y","w"]': 1, '["a"]': 1 });
    expect(store.getMeta('late_unsequenced')).toBe('2');
    expect(store.snapshot().periodStart).toBe(T0);
  });

  it('takes back a source whose events were partly pruned: the pruned stay counted, the case stays', () => {
    const store = freshStore();
    store.apply({ records: [at('c1', 'a', 0, '1'), at('c1', 'b', HOUR, '2')] }, { source: 'ds', partition: 0, offset: 1 });
    store.apply({ records: [at('c9', 'a', 30 * DAY, '9')] });
    store.prune(7 * DAY);
    store.apply({ records: [at('c1', 'c', 2 * HOUR, '3')] }, { source: 'ds', partition: 0, offset: 2 });
    store.apply({ records: [at('c1', 'd', 3 * HOUR, '4')] });
    const r = store.retractSource('ds');
    expect(r).toMatchObject({ removed: 1, cases: 1 });
    expect([...store.caseIds()].sort()).toEqual(['c1', 'c9']);
    expect(JSON.parse(store.getMeta('case_id_sample')!)).toEqual(['c1', 'c9']);
    expect(variants(store)).toEqual({ '["a","b","d"]': 1, '["a"]': 1 });
    // All of c1's kept events taken back: the case stays, with its pruned ones.
    store.apply({ records: [at('c1', 'c', 2 * HOUR, '3')] }, { source: 'ds', partition: 0, offset: 1 });
    store.prune(7 * DAY);
    store.apply({ records: [at('c1', 'e', 4 * HOUR, '5')] }, { source: 'ds2', partition: 0, offset: 1 });
    store.retractSource('ds2');
    // c comes after b, the latest pruned event: not moved, and ordered among the kept ones.
    expect(variants(store)).toEqual({ '["a","b","c","d"]': 1, '["a"]': 1 });
    expect(store.getMeta('late_unsequenced')).toBeUndefined();
    expect([...store.caseIds()].sort()).toEqual(['c1', 'c9']);
  });

  it('never gives a pruned row id out again, and the source ranges stay right', () => {
    const dir = freshDir();
    const file = join(dir, 'state.sqlite');
    let store = ProjectStore.open(file);
    store.apply({ records: [at('c9', 'a', 30 * DAY, '9')] }, { source: 'x', partition: 0, offset: 1 });
    // The newest rows are old events: pruning deletes the highest ids.
    store.apply({ records: [at('c1', 'a', 0, '1'), at('c1', 'b', HOUR, '2')] }, { source: 'old', partition: 0, offset: 1 });
    const newest = store.db.prepare('SELECT max(id) FROM event').pluck().get() as number;
    store.prune(7 * DAY);
    store.close();
    store = ProjectStore.open(file);
    store.apply({ records: [at('c2', 'a', 31 * DAY, '10')] }, { source: 'new', partition: 0, offset: 1 });
    expect(store.db.prepare("SELECT id FROM event WHERE key = 'i:10'").pluck().get()).toBe(newest + 1);
    expect(store.sourceCounts('new')).toMatchObject({ accepted: 1, events: 1 });
    expect(store.retractSource('new')).toMatchObject({ removed: 1 });
    expect(store.sourceCounts('old')).toMatchObject({ accepted: 2, events: 0 });
    store.close();
  });

  it('keeps the period and the log digest, and widens the period from the pruned spans after a replacement', () => {
    const store = freshStore();
    store.apply({ records: [at('c1', 'a', 0, '1'), at('c2', 'a', 20 * DAY, '2'), at('c2', 'b', 21 * DAY, '3')] });
    const before = store.snapshot();
    store.prune(7 * DAY);
    const after = store.snapshot();
    expect([after.periodStart, after.periodEnd, after.logDigest, after.dataVersion]).toEqual([before.periodStart, before.periodEnd, before.logDigest, before.dataVersion]);
    // A replaced body recomputes the period: the pruned case's span still counts.
    store.apply({ records: [at('c2', 'b', 21 * DAY, '3', { resource: 'ann' })] });
    expect(store.snapshot().periodStart).toBe(T0);
  });

  it('refuses to recount a pruned state (a rebuild, or a counting version upgrade at open)', () => {
    const dir = freshDir();
    const file = join(dir, 'state.sqlite');
    const store = ProjectStore.open(file);
    store.apply({ records: [at('c1', 'a', 0, '1'), at('c2', 'a', 20 * DAY, '2')] });
    store.prune(7 * DAY);
    expect(() => store.rebuild()).toThrow(EngineError);
    store.setMeta('counting', '2');
    store.close();
    expect(() => ProjectStore.open(file)).toThrow(/pruned \(retention\) and cannot be recounted/);
  });

  it('carries a pruned state of counting version 3 forward: its counts kept, the profile of its whole cases added', () => {
    const dir = freshDir();
    const file = join(dir, 'state.sqlite');
    const store = ProjectStore.open(file);
    store.apply({ records: [at('c1', 'a', 0, '1'), at('c1', 'b', DAY, '2'), at('c2', 'a', 20 * DAY, '3'), at('c2', 'b', 21 * DAY, '4')] });
    store.prune(7 * DAY);
    const before = store.snapshot().tally;
    // As version 3 left it: no profile counters (closing applies the pending changes, so the table is whole).
    store.close();
    const raw = new Database(file);
    raw.prepare("DELETE FROM counter WHERE kind LIKE 'profile.%'").run();
    raw.prepare("UPDATE meta SET value = '3' WHERE key = 'counting'").run();
    raw.close();
    const reopened = ProjectStore.open(file);
    try {
      const after = reopened.snapshot().tally;
      expect(after.cases).toBe(before.cases);
      expect([...after.edges.keys()].sort()).toEqual([...before.edges.keys()].sort());
      // The kept case c2's two events are in the profile; the pruned c1's are not, and meta says so.
      expect([...after.profile].filter(([k]) => k.startsWith('grain')).reduce((n, [, v]) => n + v, 0)).toBe(2);
      expect(reopened.getMeta('profile_partial')).toBe('1');
      expect(reopened.getMeta('counting')).toBe('6');
      expect(buildDocument(reopened.snapshot()).assumptions.some((a) => JSON.stringify(a).includes('leaves out 1 case whose older events were pruned'))).toBe(true);
    } finally {
      reopened.close();
    }
  });
});

describe('counting version 4 carried forward', () => {
  it('a pruned state keeps its counts, gains the when-begun counters (version 6) and a new data version', () => {
    const dir = freshDir();
    const file = join(dir, 'state.sqlite');
    const store = ProjectStore.open(file);
    store.apply({ records: [at('c1', 'a', 0, '1'), at('c1', 'b', DAY, '2'), at('c2', 'a', 20 * DAY, '3'), at('c2', 'b', 21 * DAY, '4')] });
    store.prune(7 * DAY);
    const before = tallyToJson(store.snapshot().tally);
    store.close();
    const raw = new Database(file);
    // Version 4 and 5 states had no `began` counters: the pruned c1 gets its own back from its fold.
    expect(raw.prepare("DELETE FROM counter WHERE kind = 'began'").run().changes).toBeGreaterThan(0);
    raw.prepare("UPDATE meta SET value = '4' WHERE key = 'counting'").run();
    const version = Number(raw.prepare("SELECT value FROM meta WHERE key = 'data_version'").pluck().get());
    raw.close();
    const reopened = ProjectStore.open(file);
    try {
      expect(tallyToJson(reopened.snapshot().tally)).toEqual(before);
      expect(reopened.getMeta('counting')).toBe('6');
      expect(reopened.dataVersion).toBe(version + 1);
    } finally {
      reopened.close();
    }
  });
});

describe('dead letters', () => {
  /** A store with dead letters of two sources, received `ages` days ago. */
  function withLetters(store: ProjectStore, source: string, ages: number[], now: number): void {
    const bad = ages.map((_, i) => ({ caseId: '', activity: 'x', timestamp: i }));
    store.apply({ records: bad }, { source, partition: 0, offset: 1 });
    const ids = store.db.prepare<[string], number>('SELECT id FROM dead_letter WHERE source = ? ORDER BY id').pluck().all(source);
    ids.forEach((id, i) => store.db.prepare('UPDATE dead_letter SET received_at = ? WHERE id = ?').run(now - ages[i]! * DAY, id));
  }

  it('are pruned by age, oldest first, keeping rejected and each source\'s count true, as a new data version', () => {
    const store = freshStore();
    const now = Date.now();
    withLetters(store, 'a', [40, 35, 10], now);
    withLetters(store, 'b', [31, 1], now);
    expect(store.snapshot().rejected).toBe(5);
    const version = store.dataVersion;
    expect(store.pruneDeadLetters({ receivedBefore: now - 30 * DAY, limit: 2 })).toBe(2);
    expect(store.pruneDeadLetters({ receivedBefore: now - 30 * DAY, limit: 2 })).toBe(1);
    expect(store.dataVersion).toBe(version + 2);
    expect(store.snapshot().rejected).toBe(2);
    expect(store.sourceCounts('a').rejected).toBe(1);
    expect(store.sourceCounts('b').rejected).toBe(1);
    expect(store.deadLetterTotal()).toBe(2);
    expect(buildDocument(store.snapshot()).assumptions).toContain('2 records were refused (not parsed, mapped or valid; kept as dead letters) and are not counted.');
    expect(store.pruneDeadLetters({ receivedBefore: now, limit: 10 })).toBe(2);
    expect(store.getMeta('rejected')).toBeUndefined();
  });

  it('are pruned past a count per project, the oldest of all its stores first', async () => {
    const dir = freshDir();
    const registry = new ProjectRegistry(dir);
    const now = Date.now();
    withLetters(registry.store('p'), 'http', [5, 3, 1], now);
    withLetters(registry.part('p', 'src', 0), 'src', [4, 2], now);
    withLetters(registry.part('p', 'src', 1), 'src', [6], now);
    const policy = { retentionDays: null, deadLetterDays: 30, deadLetterMax: 3 };
    expect(await registry.prune('p', policy, { now })).toEqual({ cases: 0, events: 0, deadLetters: 3 });
    const ages = (s: ProjectStore) => s.db.prepare<[], number>('SELECT received_at FROM dead_letter ORDER BY id').pluck().all().map((t) => Math.round((now - t) / DAY));
    expect(ages(registry.store('p'))).toEqual([3, 1]);
    expect(ages(registry.part('p', 'src', 0))).toEqual([2]);
    expect(ages(registry.part('p', 'src', 1))).toEqual([]);
    expect(registry.state('p').snapshot().rejected).toBe(3);
    expect(registry.part('p', 'src', 0).sourceCounts('src').rejected).toBe(1);
    // And by age across them; a project without state files is left alone (none made).
    expect(await registry.prune('p', { ...policy, deadLetterDays: 2 }, { now })).toMatchObject({ deadLetters: 1 });
    expect(await registry.prune('none', policy)).toEqual({ cases: 0, events: 0, deadLetters: 0 });
    expect(existsSync(registry.dirOf('none'))).toBe(false);
    registry.close();
  });
});

describe('a retention pass over a project', () => {
  it('prunes its own store and its partition states in steps, and the merged state keeps its counts and split cases', async () => {
    const dir = freshDir();
    const registry = new ProjectRegistry(dir);
    const own = registry.store('p');
    const part = registry.part('p', 'src', 0);
    for (let i = 0; i < 300; i++) own.apply({ records: [at(`c${i}`, 'a', i * HOUR, `o${i}`), at(`c${i}`, 'b', i * HOUR + 60_000, `p${i}`)] });
    part.apply({ records: [at('c0', 'z', 2 * HOUR, 'z0'), at('k1', 'a', 0, 'k1'), at('k2', 'a', 400 * HOUR, 'k2')] }, { source: 'src', partition: 0, offset: 1 });
    const before = registry.state('p').snapshot();
    let steps = 0;
    const result = await registry.prune('p', { retentionDays: 5, deadLetterDays: 30, deadLetterMax: 100 }, { stepRows: 80, pause: async () => void (steps += 1) });
    // Each file on its own clock: the own store's newest event is at 299 h, the partition's at 400 h.
    expect(result).toEqual({ cases: 181, events: 360, deadLetters: 0 });
    expect(steps).toBeGreaterThan(8);
    const after = registry.state('p').snapshot();
    expect(tallyToJson(after.tally)).toEqual(tallyToJson(before.tally));
    // c0 is in both files (pruned in each): still one split case; the pruned counts add up across the files.
    expect(after.meta.split_cases).toBe('1');
    expect(after.meta.pruned_events).toBe('360');
    // A late event in each file: the merged meta adds them.
    own.apply({ records: [at('c1', 'late', 0, 'l1')] });
    part.apply({ records: [at('k1', 'late', -HOUR, 'l2')] }, { source: 'src', partition: 0, offset: 2 });
    expect(mergedState(own, [part]).snapshot().meta.late_unsequenced).toBe('2');
    registry.close();
  });

  it('stops between steps when asked, and a project deleted meanwhile is not made again', async () => {
    const dir = freshDir();
    const registry = new ProjectRegistry(dir);
    for (let i = 0; i < 50; i++) registry.ingest('p', { records: [at(`c${i}`, 'a', i * DAY, `e${i}`)] });
    let steps = 0;
    const result = await registry.prune('p', { retentionDays: 1, deadLetterDays: 30, deadLetterMax: 100 }, {
      stepRows: 5,
      pause: async () => {
        if (++steps === 2) registry.remove('p');
      },
    });
    expect(result.cases).toBeLessThanOrEqual(10);
    expect(existsSync(registry.dirOf('p'))).toBe(false);
    registry.close();
  });

  it('takes each step in a few milliseconds on a 20k-event store', () => {
    const store = freshStore();
    const records = [];
    for (let c = 0; c < 2000; c++) for (let k = 0; k < 10; k++) records.push(at(`case-${c}`, `act${k}`, c * HOUR + k * 60_000, `${c}-${k}`, { resource: `r${k % 3}`, attributes: { amount: k * 10 } }));
    for (let i = 0; i < records.length; i += 5000) store.apply({ records: records.slice(i, i + 5000) });
    const times: number[] = [];
    let pruned = 0;
    for (let after: number | undefined = 0; after !== undefined; ) {
      const t = performance.now();
      const step = store.pruneStep(30 * DAY, after);
      times.push(performance.now() - t);
      pruned += step.events;
      after = step.next;
    }
    expect(pruned).toBe(20_000 - 30 * 24 * 10 - 10);
    times.sort((a, b) => a - b);
    console.log(`retention steps (${times.length}; at most 1000 rows scanned and 250 read each): median ${times[times.length >> 1]!.toFixed(1)} ms, max ${times.at(-1)!.toFixed(1)} ms`);
    expect(times.length).toBeGreaterThan(30);
    expect(times[times.length >> 1]).toBeLessThan(50);
  });
});

describe('KeyIndex.remove', () => {
  it('keeps every other key findable, whatever is removed', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 300 })), { maxLength: 600 }), (ops) => {
        const index = new KeyIndex(4);
        const model = new Map<string, number>();
        let next = 1;
        for (const [add, k] of ops) {
          const key = `k${k}`;
          if (add && !model.has(key)) {
            model.set(key, next);
            index.add(key, next++);
          } else if (!add && model.has(key)) {
            expect(index.remove(key, model.get(key)!)).toBe(true);
            model.delete(key);
          }
        }
        expect(index.size).toBe(model.size);
        for (let k = 0; k <= 300; k++) {
          const key = `k${k}`;
          const id = model.get(key);
          expect(index.find(key, (found) => found === id)).toBe(id);
        }
      }),
      { numRuns: 300 },
    );
  });
});

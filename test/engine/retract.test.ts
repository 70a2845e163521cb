import Database from 'better-sqlite3';
import { join } from 'node:path';
import { Rng } from '../../connectors/simulator/random.js';
import { describe, expect, it } from 'vitest';
import { simulate } from '../../connectors/simulator/index.js';
import { buildDocument } from '../../engine/document/index.js';
import { EngineError, ProjectStore, type Batch, type StoreOptions } from '../../engine/index.js';
import { migrations } from '../../engine/store/migrations.js';
import { freshDir, freshStore } from './helpers.js';

/**
 * ProjectStore.retractSource: taking one source's events back leaves the
 * state a store fed only the other sources has, document for document (all
 * but the data version, which only grows).
 */

/** A seeded generator: the simulator's own (connectors/simulator/random.ts). */
function rng(seed: number): () => number {
  const r = new Rng(seed);
  return () => r.next();
}

/** The document without its data version: what must come back after a retraction. */
function documentOf(store: ProjectStore): string {
  const doc = buildDocument(store.snapshot()) as unknown as { source: Record<string, unknown> };
  delete doc.source.data_version;
  return JSON.stringify(doc);
}

interface Fed {
  source: string;
  batches: Batch[];
}

/** Splits records into batches of random sizes. */
function batchesOf(records: unknown[], next: () => number): Batch[] {
  const out: Batch[] = [];
  for (let i = 0; i < records.length; ) {
    const n = 1 + Math.floor(next() * 120);
    out.push({ records: records.slice(i, i + n) });
    i += n;
  }
  return out;
}

/** Applies the sources' batches interleaved at random (each source's in its order), positioned per source. */
function feed(store: ProjectStore, sources: Fed[], next: () => number): void {
  const at = sources.map(() => 0);
  for (;;) {
    const open = sources.map((_, i) => i).filter((i) => at[i]! < sources[i]!.batches.length);
    if (!open.length) return;
    const i = open[Math.floor(next() * open.length)]!;
    const s = sources[i]!;
    const k = at[i]!++;
    store.apply(s.batches[k]!, s.source === '' ? undefined : { source: s.source, partition: 0, offset: k + 1 });
  }
}

/** Three sources over one simulated log: shared events (same id, same body), each source's own, B's late events and bad records. */
function sourcesFor(seed: number): Fed[] {
  const next = rng(seed);
  const events = [...simulate({ model: seed % 2 ? 'claims' : 'order-to-cash', cases: 120, seed, lateShare: 0.15, duplicateShare: 0.05 })];
  const a: unknown[] = [];
  const b: unknown[] = [];
  const c: unknown[] = [];
  for (const e of events) {
    const r = next();
    if (r < 0.35) a.push(e);
    else if (r < 0.55) b.push(e);
    else if (r < 0.75) c.push(e);
    else if (r < 0.85) a.push(e), b.push(e);
    else if (r < 0.95) b.push(e), c.push(e);
    else a.push(e), b.push(e), c.push(e);
  }
  // B also sends records that fail and a case of its own; A sends one without a position.
  b.push({ caseId: 'b-only', activity: 'x', timestamp: 'never' }, { caseId: '', activity: 'y', timestamp: 0 });
  b.push({ caseId: '0000-b-only', activity: 'first', timestamp: '2025-01-01T00:00:00Z' }, { caseId: '0000-b-only', activity: 'then', timestamp: '2025-01-01T01:00:00Z' });
  return [
    { source: 'a', batches: batchesOf(a, next) },
    { source: 'b', batches: batchesOf(b, next) },
    { source: 'c', batches: batchesOf(c, next) },
  ];
}

const variants: [string, StoreOptions][] = [
  ['defaults', {}],
  ['merging after 5 pending changes, a three-case cache', { mergeAfter: 5, cacheCases: 3 }],
  ['counter ids renumbered between batches', { maxCounterIds: 50, mergeAfter: 40 }],
];

describe('ProjectStore.retractSource', () => {
  for (const [label, options] of variants) {
    it(`leaves the state of a store that never had the source (${label})`, () => {
      for (const seed of [1, 2, 3, 4]) {
        const sources = sourcesFor(seed);
        const all = freshStore(options);
        feed(all, sources, rng(seed + 100));
        const withB = documentOf(all);
        const before = all.dataVersion;
        const r = all.retractSource('b');
        expect(r.removed).toBeGreaterThan(0);
        expect(r.deadLetters).toBe(2);
        expect(all.dataVersion).toBe(before + 1);
        expect(all.position('b')).toBeUndefined();
        expect(all.deadLetters({ source: 'b' })).toEqual([]);

        const without = freshStore(options);
        feed(without, sources.filter((s) => s.source !== 'b'), rng(seed + 100));
        expect(documentOf(all), `seed ${seed}`).toBe(documentOf(without));
        // Meta the store derives (digest, period, rejected count, case sample) too.
        const meta = (s: ProjectStore) => ({ ...s.snapshot().meta, data_version: undefined });
        expect(meta(all)).toEqual(meta(without));
        expect(all.caseIds()).toEqual(without.caseIds());
        expect(all.eventCount()).toBe(without.eventCount());

        // The same source again, from the start: the state with it comes back, and the store keeps working.
        feed(all, sources.filter((s) => s.source === 'b'), rng(seed));
        expect(documentOf(all), `seed ${seed}, b again`).toBe(withB);
        const counts = all.sourceCounts('b');
        const sent = sources[1]!.batches.reduce((n, x) => n + x.records.length, 0);
        expect(counts.rejected).toBe(2);
        expect(counts.accepted + counts.duplicates + counts.rejected).toBe(sent);
        // Every valid event it sent is held (once), whoever appended it.
        expect(counts.events).toBe(sent - 2 - sentAgain(sources[1]!));
        all.retractSource('a');
        all.retractSource('b');
        all.retractSource('c');
        expect(all.eventCount()).toBe(0);
        const empty = freshStore(options);
        expect(documentOf(all)).toBe(documentOf(empty));
      }
    });
  }

  it('keeps an event another source (or a batch without a position) also sent; takes it when the last holder goes', () => {
    const store = freshStore();
    const e1 = { caseId: 'c1', activity: 'a', timestamp: '2025-01-01T00:00:00Z', eventId: 'e1' };
    const e2 = { caseId: 'c1', activity: 'b', timestamp: '2025-01-01T01:00:00Z', eventId: 'e2' };
    const e3 = { caseId: 'c2', activity: 'a', timestamp: '2025-01-01T02:00:00Z', eventId: 'e3' };
    store.apply({ records: [e1, e2] }, { source: 'd1', partition: 0, offset: 1 });
    store.apply({ records: [e2, e3] }, { source: 'd2', partition: 0, offset: 1 });
    store.apply({ records: [e3] });
    expect(store.sourceCounts('d1')).toEqual({ accepted: 2, duplicates: 0, rejected: 0, events: 2, cases: 1 });
    expect(store.sourceCounts('d2')).toEqual({ accepted: 1, duplicates: 1, rejected: 0, events: 2, cases: 2 });

    expect(store.retractSource('d1')).toMatchObject({ removed: 1, cases: 1 });
    expect(store.snapshot().tally.events).toBe(2); // e2 (d2 holds it) and e3
    expect(store.retractSource('d2')).toMatchObject({ removed: 1 }); // e2; e3 stays, sent without a position too
    expect(store.snapshot().tally).toMatchObject({ events: 1, cases: 1 });
    expect(store.retractSource('nobody')).toMatchObject({ removed: 0, deadLetters: 0 });
    expect(() => store.retractSource('')).toThrow(EngineError);
  });

  it("rows kept before sources were recorded are no source's and stay", () => {
    const file = join(freshDir(), 'state.sqlite');
    // Written, then given to no source, as migration 4 does with the rows of an older file.
    const s1 = ProjectStore.open(file);
    s1.apply({ records: [{ caseId: 'c1', activity: 'a', timestamp: 0, eventId: 'old1' }] }, { source: 'x', partition: 0, offset: 1 });
    s1.close();
    const raw = new Database(file);
    raw.exec("DELETE FROM source_rows; INSERT INTO source_rows SELECT min(id), max(id), '' FROM event");
    raw.close();
    const store = ProjectStore.open(file);
    store.apply({ records: [{ caseId: 'c1', activity: 'a', timestamp: 0, eventId: 'old1' }, { caseId: 'c1', activity: 'b', timestamp: 1, eventId: 'new' }] }, { source: 'y', partition: 0, offset: 1 });
    store.retractSource('y');
    store.retractSource('x');
    expect(store.snapshot().tally.events).toBe(1);
    store.close();
  });

  it('migration 4 gives every row kept before it to no source', () => {
    const db = new Database(':memory:');
    for (let v = 0; v < 3; v++) db.exec(migrations[v]!);
    db.prepare('INSERT INTO event (key, case_id, time, digest, body) VALUES (?, ?, ?, ?, ?)').run('k1', 'c', 0, '0'.repeat(32), '{}');
    db.prepare('INSERT INTO event (key, case_id, time, digest, body) VALUES (?, ?, ?, ?, ?)').run('k2', 'c', 1, '0'.repeat(32), '{}');
    db.exec(migrations[3]!);
    expect(db.prepare('SELECT first_id, last_id, source FROM source_rows').all()).toEqual([{ first_id: 1, last_id: 2, source: '' }]);
    const empty = new Database(':memory:');
    for (const m of migrations) empty.exec(m);
    expect(empty.prepare('SELECT count(*) AS n FROM source_rows').get()).toEqual({ n: 0 });
  });
});

/** Events a source sent more than once (within a batch or across its batches): counted as duplicates by it, held once. */
function sentAgain(fed: Fed): number {
  const seen = new Set<string>();
  let dups = 0;
  for (const b of fed.batches) {
    for (const r of b.records as { eventId?: string }[]) {
      if (!r.eventId) continue;
      if (seen.has(r.eventId)) dups++;
      else seen.add(r.eventId);
    }
  }
  return dups;
}

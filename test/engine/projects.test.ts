import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { importLog } from '../../connectors/files/index.js';
import { EngineError } from '../../engine/index.js';
import { ProjectStore } from '../../engine/store/project-store.js';
import { buildInProcess, documentText, Graphs, ProjectRegistry, type GraphVersionStore } from '../../engine/projects/index.js';

/** The project service without HTTP: one ingest path that applies, then announces. */
describe('the project registry', () => {
  const dirs: string[] = [];
  const registries: ProjectRegistry[] = [];
  afterEach(() => {
    for (const r of registries.splice(0)) r.close();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const fresh = () => {
    const dir = mkdtempSync(join(tmpdir(), 'pcg-projects-'));
    dirs.push(dir);
    const r = new ProjectRegistry(dir);
    registries.push(r);
    return { dir, registry: r };
  };
  const events = (n: number, from = 0) =>
    Array.from({ length: n }, (_, i) => ({ caseId: `c${from + i}`, activity: 'Open', timestamp: new Date(Date.UTC(2024, 0, 1) + (from + i) * 60_000).toISOString(), eventId: `e${from + i}` }));

  it('ingest applies a batch once per position and announces each new data version', () => {
    const { registry } = fresh();
    const seen: number[] = [];
    registry.changes.on('p1', (v: number) => seen.push(v));
    expect(registry.ingest('p1', { records: events(3) }, { source: 's', partition: 0, offset: 3 }).accepted).toBe(3);
    // The same position again: not applied, not announced.
    expect(registry.ingest('p1', { records: events(3) }, { source: 's', partition: 0, offset: 3 }).applied).toBe(false);
    // Only duplicates: applied, nothing accepted, not announced.
    expect(registry.ingest('p1', { records: events(3) }).accepted).toBe(0);
    expect(registry.ingest('p1', { records: events(2, 3) }).accepted).toBe(2);
    expect(seen).toEqual([1, 2]);
    expect(registry.store('p1').snapshot().tally.cases).toBe(5);
  });

  it("retracts a source elsewhere: meanwhile the project's writes answer state_busy and its reads see the state before, others go on; the result is the in-process retraction's", async () => {
    const { registry } = fresh();
    const { registry: twin } = fresh();
    for (const r of [registry, twin]) {
      r.ingest('p', { records: events(30) }, { source: 'http', partition: 0, offset: 1 });
      r.ingest('p', { records: events(40, 20) }, { source: 'dataset', partition: 0, offset: 1 });
      r.ingest('q', { records: events(5) });
    }
    const seen: number[] = [];
    registry.changes.on('p', (v: number) => seen.push(v));
    const busyCodes: string[] = [];
    let writableAfter: Promise<boolean> | undefined;
    const before = twin.store('p').snapshot();
    const result = await registry.retractElsewhere('p', 'dataset', async (file, source) => {
      // Another connection, as on a thread; here the project's writes are refused, its reads answered, the other project served.
      for (const write of [() => registry.ingest('p', { records: events(1, 99) }), () => registry.retract('p', 'http'), () => registry.target('p').setMeta('x', 'y')]) {
        try {
          write();
        } catch (error) {
          if (error instanceof EngineError) busyCodes.push(error.code);
        }
      }
      await expect(registry.retractElsewhere('p', 'http', async () => ({ removed: 0, cases: 0, deadLetters: 0, dataVersion: 0 }))).rejects.toThrow(/taking back/);
      expect(registry.isAway('p')).toBe(true);
      writableAfter = registry.whenWritable('p').then(() => registry.isAway('p'));
      expect(registry.ingest('q', { records: events(1, 5) }).accepted).toBe(1);
      expect(registry.state('p').snapshot()).toEqual(before);
      const store = ProjectStore.open(file);
      try {
        const result = store.retractSource(source);
        // Read before the end is announced: the reader's store sees the new state, as readers of a partition written elsewhere do.
        expect(registry.state('p').snapshot().tally.events).toBe(30);
        return result;
      } finally {
        store.close();
      }
    });
    expect(busyCodes).toEqual(['state_busy', 'state_busy', 'state_busy']);
    // A writer that waited is let through once the project is writable again.
    expect(await writableAfter).toBe(false);
    expect(registry.isAway('p')).toBe(false);
    expect(result).toEqual(twin.retract('p', 'dataset'));
    // Reopened with nothing cached from before: the same state as the twin's, announced once.
    expect(registry.store('p').snapshot()).toEqual(twin.store('p').snapshot());
    expect(registry.store('p').snapshot().tally.events).toBe(30);
    expect(seen).toEqual([registry.state('p').dataVersion]);
    // It goes on from there as the twin does.
    expect(registry.ingest('p', { records: events(3, 100) }).accepted).toBe(3);
    expect(twin.ingest('p', { records: events(3, 100) }).accepted).toBe(3);
    expect(registry.store('p').snapshot()).toEqual(twin.store('p').snapshot());
  });

  it('answers an ingest before the merge it made due, and merges right after', async () => {
    const { registry } = fresh();
    const pending = () => (registry.store('p1').db.prepare('SELECT count(*) AS n FROM case_delta').get() as { n: number }).n;
    // A merge is due at 256 waiting batches (engine/store/batch-log.ts); each ingest here is one batch.
    for (let i = 0; i < 256; i++) registry.ingest('p1', { records: events(1, i) });
    expect([pending(), registry.store('p1').settleDue]).toEqual([256, true]);
    await new Promise((resolve) => setImmediate(resolve));
    expect([pending(), registry.store('p1').settleDue]).toEqual([0, false]);
    expect(registry.store('p1').snapshot().tally.cases).toBe(256);
  });

  it('a file import through the target announces its batches, like any stream', async () => {
    const { dir, registry } = fresh();
    const file = join(dir, 'log.ndjson');
    writeFileSync(file, events(4).map((e) => JSON.stringify(e)).join('\n'));
    let announced = 0;
    registry.changes.on('p2', () => (announced += 1));
    const summary = await importLog(registry.target('p2'), file);
    expect(summary.accepted).toBe(4);
    expect(announced).toBe(1);
    expect(registry.store('p2').getMeta('format')).toBe('ndjson');
  });

  it('hands a builder the state files when the counted state is not in memory, and the snapshot when it is', async () => {
    const { registry } = fresh();
    const kept = new Map<string, string>();
    const versions: GraphVersionStore = { get: (p, v) => (kept.has(`${p}:${v}`) ? { json: kept.get(`${p}:${v}`)! } : undefined), put: (p, v, json) => void kept.set(`${p}:${v}`, json) };
    const given: string[] = [];
    const graphs = new Graphs(registry, versions, async (source) => {
      given.push(source.files ? `files ${source.files().length}` : 'snapshot');
      return buildInProcess({ snapshot: () => source.snapshot() });
    });
    registry.ingest('p', { records: events(3) });
    // Nothing has read the counters yet: a snapshot here would read them all, so the builder gets the files.
    expect(registry.state('p').warm).toBe(false);
    const first = await graphs.current('p');
    // Read once (by anyone), the counted state is kept and follows each batch: the next snapshot is cheap here.
    registry.state('p').snapshot();
    registry.ingest('p', { records: events(2, 3) });
    expect(registry.state('p').warm).toBe(true);
    const second = await graphs.current('p');
    expect(given).toEqual(['files 1', 'snapshot']);
    expect([first.dataVersion, second.dataVersion]).toEqual([1, 2]);
    expect(JSON.parse(await documentText(second)).source.cases).toBe(5);
  });

  it('serves one document per data version from the version store, built once', async () => {
    const { registry } = fresh();
    const kept = new Map<string, Uint8Array>();
    let puts = 0;
    const versions: GraphVersionStore = {
      get: (p, v) => (kept.has(`${p}:${v}`) ? { gzip: kept.get(`${p}:${v}`)! } : undefined),
      put: (p, v, json, gzip) => {
        puts += 1;
        // What is kept is the JSON text, gzipped.
        expect(gunzipSync(gzip).toString('utf8')).toBe(json);
        kept.set(`${p}:${v}`, gzip);
      },
    };
    const graphs = new Graphs(registry, versions);
    registry.ingest('p3', { records: events(2) });
    const [a, b] = await Promise.all([graphs.current('p3'), graphs.current('p3')]);
    expect(a.json).toBe(b.json);
    expect(puts).toBe(1);
    expect(JSON.parse(a.json!).source.cases).toBe(2);
    // Served again from the store: the same text, decompressed.
    const again = await graphs.current('p3');
    expect(again.json).toBeUndefined();
    expect(await documentText(again)).toBe(a.json);
    expect(graphs.version('p3', 1)?.etag).toBe('"1"');
  });

  it('keeps at most maxOpen stores open, closing the least recently used, and reopens them on use', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pcg-projects-'));
    dirs.push(dir);
    const registry = new ProjectRegistry(dir, { maxOpen: 8 });
    registries.push(registry);
    for (let p = 0; p < 30; p++) registry.ingest(`p${p}`, { records: events(2, p * 2) });
    expect(registry.openCount).toBe(8);
    // A closed project reopens with its state whole; a target keeps working across evictions.
    expect(registry.store('p0').snapshot().tally.cases).toBe(2);
    const target = registry.target('p1');
    for (let p = 30; p < 40; p++) registry.ingest(`p${p}`, { records: events(1, 100 + p) });
    target.setMeta('case_notion', 'order');
    expect(target.totals()).toEqual({ cases: 2, events: registry.store('p1').currentTally().events });
    expect(registry.store('p1').getMeta('case_notion')).toBe('order');
    expect(registry.openCount).toBe(8);
  });

  it('caches at most cachedCases folds across all its stores, and counts the same as without a cap', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pcg-projects-'));
    dirs.push(dir);
    const capped = new ProjectRegistry(join(dir, 'capped'), { maxOpen: 8, cachedCases: 500 });
    const free = new ProjectRegistry(join(dir, 'free'), { maxOpen: 8 });
    registries.push(capped, free);
    // Five busy projects of 400 open cases each, every case continued batch after batch.
    const step = (c: number, k: number) => ({ caseId: `c${c}`, activity: `A${k}`, timestamp: new Date(Date.UTC(2024, 0, 1) + k * 3_600_000 + c * 1000).toISOString(), eventId: `e${c}-${k}` });
    for (let k = 0; k < 6; k++) {
      for (let p = 0; p < 5; p++) {
        const records = Array.from({ length: 400 }, (_, c) => step(c, k));
        capped.ingest(`p${p}`, { records });
        free.ingest(`p${p}`, { records });
        expect(capped.folds.size).toBeLessThanOrEqual(500);
      }
    }
    expect(free.folds.size).toBe(2000);
    expect(capped.folds.size).toBe(500);
    // Each store kept about its share, and a fold given up only means reading the case back.
    for (let p = 0; p < 5; p++) expect(capped.state(`p${p}`).snapshot().tally).toEqual(free.state(`p${p}`).snapshot().tally);
    // A closed store gives its folds back.
    capped.close();
    expect(capped.folds.size).toBe(0);
  });

  it("merges partition states with the project's own: counters add, versions sum, split cases counted", () => {
    const { registry } = fresh();
    registry.ingest('p', { records: events(2) });
    registry.ingestPart('p', { records: events(3, 10) }, { source: 'src', partition: 0, offset: 0 });
    registry.ingestPart('p', { records: events(4, 20) }, { source: 'src', partition: 1, offset: 0 });
    let state = registry.state('p');
    expect(state.dataVersion).toBe(3);
    expect(state.snapshot().tally.cases).toBe(9);
    expect(state.snapshot().meta.split_cases).toBeUndefined();
    // The same case in two partitions: counted per part, and reported.
    registry.ingestPart('p', { records: [{ caseId: 'c20', activity: 'Close', timestamp: '2024-02-01T00:00:00Z' }] }, { source: 'src', partition: 0, offset: 1 });
    state = registry.state('p');
    expect(state.dataVersion).toBe(4);
    expect(state.snapshot().meta.split_cases).toBe('1');
    expect(state.snapshot().tally.cases).toBe(10);
    expect([...state.traces()].flat()).toHaveLength(10);
  });
});

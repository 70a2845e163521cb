import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { simulate } from '../../connectors/simulator/index.js';
import { ProjectStore } from '../../engine/index.js';
import { buildInProcess, CaseReads, ProjectRegistry, type CaseQuery } from '../../engine/projects/index.js';
import { scopedSnapshot } from '../../engine/projects/scope.js';
import { documentPool } from '../../api/document-pool.js';
import { ApiError } from '../../api/errors.js';
import { viewInProcess } from '../../api/mcp/viewer.js';

/**
 * Documents built on the worker pool are the very bytes the in-process builder makes, whether the thread gets a
 * snapshot or takes it from the project's files; a build past its budget is a 503.
 */
describe('the document pool', () => {
  const store = ProjectStore.open(':memory:');
  store.apply({ records: [...simulate({ model: 'claims', cases: 300, seed: 3 })] });
  const snapshot = store.snapshot();
  const fromSnapshot = { snapshot: () => snapshot };
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('builds off the main thread the same document as in process', async () => {
    const pool = documentPool({ threads: 1, budgetMs: 60_000 });
    try {
      // A timer set before the build fires before its result: the build did not hold this thread
      // (an in-process build would have finished, and its promise settled, before any timer ran).
      let timerFirst = false;
      let done = false;
      setTimeout(() => (timerFirst = !done), 0);
      const threaded = await pool.build(fromSnapshot);
      done = true;
      expect(timerFirst).toBe(true);
      expect(threaded).toEqual(await buildInProcess(fromSnapshot));
      expect(JSON.parse(threaded.json).source.cases).toBe(300);
    } finally {
      await pool.close();
    }
  }, 60_000);

  it("snapshots a project's files on the thread (its own store and a partition state), never on the caller's", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pcg-pool-'));
    dirs.push(dir);
    const registry = new ProjectRegistry(dir);
    const pool = documentPool({ threads: 1, budgetMs: 60_000 });
    try {
      const events = [...simulate({ model: 'order-to-cash', cases: 200, seed: 5 })];
      registry.ingest('p', { records: events.slice(0, 800) });
      registry.ingestPart('p', { records: events.slice(800) }, { source: 'k', partition: 0, offset: 1 });
      const state = registry.state('p');
      const files = registry.filesOf('p');
      expect(files.map((f) => f.slice(dir.length))).toEqual(['/projects/p/state.sqlite', '/projects/p/parts/k.0.sqlite']);
      const threaded = await pool.build({
        snapshot: () => {
          throw new Error('snapshot taken on the calling thread');
        },
        files: () => files,
      });
      expect(threaded).toEqual(await buildInProcess({ snapshot: () => state.snapshot() }));
      expect(threaded.dataVersion).toBe(state.dataVersion);
      expect(JSON.parse(threaded.json).source.events).toBe(events.length);
      // The project deleted: its files are not made again by a build.
      registry.remove('p');
      await expect(pool.build({ snapshot: () => state.snapshot(), files: () => files })).rejects.toThrow(/is gone/);
    } finally {
      await pool.close();
      registry.close();
    }
  }, 60_000);

  it("builds a scoped view from the project's files on the thread: the bytes and version of the in-process scoped build", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pcg-pool-'));
    dirs.push(dir);
    const registry = new ProjectRegistry(dir);
    const pool = documentPool({ threads: 1, budgetMs: 60_000 });
    try {
      const events = [...simulate({ model: 'order-to-cash', cases: 200, seed: 9 })];
      registry.ingest('one', { records: events });
      registry.ingest('two', { records: events.slice(0, 900) });
      registry.ingestPart('two', { records: events.slice(900) }, { source: 'k', partition: 0, offset: 1 });
      // An activity some cases have and others not.
      const casesOf = new Map<string, Set<string>>();
      for (const e of events as { caseId: string; activity: string }[]) casesOf.set(e.activity, (casesOf.get(e.activity) ?? new Set()).add(e.caseId));
      const activity = [...casesOf].find(([, cases]) => cases.size > 20 && cases.size < 180)![0];
      const scopes = [{ activities: [activity] }, { from: '2000-01-01T00:00:00Z' }];
      for (const id of ['one', 'two']) {
        const state = registry.state(id);
        const inProcess = await buildInProcess({ snapshot: () => scopedSnapshot(state, scopes) });
        const threaded = await pool.build({
          snapshot: () => {
            throw new Error('scoped snapshot taken on the calling thread');
          },
          files: () => registry.filesOf(id),
          scopes,
        });
        expect(threaded).toEqual(inProcess);
        expect(threaded.dataVersion).toBe(state.dataVersion);
        const doc = JSON.parse(threaded.json);
        // Kept cases only: fewer than the project's, more than none.
        expect(doc.source.cases).toBeGreaterThan(0);
        expect(doc.source.cases).toBeLessThan(200);
      }
    } finally {
      await pool.close();
      registry.close();
    }
  }, 60_000);

  it("answers queries over every case (blocks, pages of cases) from the project's files on the thread: the in-process answers, recounted from the events", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pcg-pool-'));
    dirs.push(dir);
    const registry = new ProjectRegistry(dir);
    const pool = documentPool({ threads: 1, budgetMs: 60_000 });
    try {
      const events = [...simulate({ model: 'order-to-cash', cases: 150, seed: 11 })] as { caseId: string; activity: string; timestamp: string }[];
      registry.ingest('one', { records: events });
      // Split by case, as a topic keyed by case id is: every case in one part.
      const firstHalf = new Set(events.slice(0, 700).map((e) => e.caseId));
      registry.ingest('two', { records: events.filter((e) => firstHalf.has(e.caseId)) });
      registry.ingestPart('two', { records: events.filter((e) => !firstHalf.has(e.caseId)) }, { source: 'k', partition: 0, offset: 1 });
      // Recounted from the events themselves: each case's activities in time order (the simulator's order).
      const traces = new Map<string, string[]>();
      for (const e of events) traces.set(e.caseId, [...(traces.get(e.caseId) ?? []), e.activity]);
      const byPath = new Map<string, string[]>();
      for (const [id, path] of traces) byPath.set(JSON.stringify(path), [...(byPath.get(JSON.stringify(path)) ?? []), id]);
      const [topKey, topIds] = [...byPath].sort((a, b) => b[1].length - a[1].length)[0]!;
      const path = JSON.parse(topKey) as string[];
      const end = path[path.length - 1]!;
      const endingThere = [...traces.values()].filter((t) => t[t.length - 1] === end).length;
      const pairs: [string, string][] = [];
      for (let i = 1; i < path.length; i++) pairs.push([path[i - 1]!, path[i]!]);
      const queries: CaseQuery[] = [
        { type: 'kpi' },
        { type: 'variants', limit: 3 },
        { type: 'conformance', allowedTransitions: pairs, startActivities: [path[0]!] },
        { type: 'filter', scope: { variants: [path] } },
        { type: 'cases', path, offset: 1, limit: 2, maxEvents: 3 },
        { type: 'cases', endActivity: end, offset: 0, limit: 500, maxEvents: 1 },
      ];
      const threaded = new CaseReads(registry, pool.read);
      const inProcess = new CaseReads(registry);
      for (const id of ['one', 'two']) {
        const answers = [];
        for (const q of queries) {
          const a = await threaded.run(id, [], q);
          // Read from the files on the thread, never from the caller's state (a tiny query may answer within a millisecond, so no timer can tell).
          const fromFiles = await pool.read(
            {
              state: () => {
                throw new Error('cases read on the calling thread');
              },
              files: () => registry.filesOf(id),
            },
            [],
            q,
          );
          expect(fromFiles).toEqual(a);
          expect(a).toEqual(await inProcess.run(id, [], q));
          expect(a.dataVersion).toBe(registry.state(id).dataVersion);
          answers.push(a.result as any);
        }
        const [kpi, variants, conformance, filter, page, ending] = answers;
        expect([kpi.cases, kpi.events, kpi.activities]).toEqual([traces.size, events.length, new Set(events.map((e) => e.activity)).size]);
        expect(variants.distinct).toBe(byPath.size);
        expect(variants.variants[0]).toMatchObject({ activities: path, cases: topIds.length });
        const allowed = new Set(pairs.map((x) => JSON.stringify(x)));
        const fits = [...traces.values()].filter((t) => t[0] === path[0] && t.every((a, i) => i === 0 || allowed.has(JSON.stringify([t[i - 1], a])))).length;
        expect(fits).toBeGreaterThanOrEqual(topIds.length);
        expect([conformance.cases, conformance.fitting]).toEqual([traces.size, fits]);
        expect(filter).toEqual({ cases: topIds.length, events: topIds.length * path.length });
        expect(page.total).toBe(topIds.length);
        expect(page.cases.map((c: any) => c.caseId)).toEqual([...topIds].sort().slice(1, 3));
        expect(page.cases[0].events.map((e: any) => e.activity)).toEqual(path.slice(0, 3));
        expect(page.cases[0].eventCount).toBe(path.length);
        expect(ending.total).toBe(endingThere);
      }
      // Within a scope: only the kept cases are read.
      const scoped = await threaded.run('one', [{ variants: [path] }], { type: 'kpi' });
      expect((scoped.result as any).cases).toBe(topIds.length);
    } finally {
      await pool.close();
      registry.close();
    }
  }, 60_000);

  it("answers the MCP tools' views of documents on the thread, as in process; a view's not_found crosses back as an ApiError", async () => {
    const pool = documentPool({ threads: 1, budgetMs: 60_000 });
    try {
      const built = await buildInProcess(fromSnapshot);
      const other = ProjectStore.open(':memory:');
      other.apply({ records: [...simulate({ model: 'claims', cases: 320, seed: 3 })] });
      const newer = await buildInProcess({ snapshot: () => other.snapshot() });
      other.close();
      const kept = { dataVersion: built.dataVersion, etag: '"1"', gzip: built.gzip };
      const fresh = { dataVersion: newer.dataVersion, etag: '"2"', json: newer.json, gzip: newer.gzip };
      const doc = JSON.parse(built.json);
      const requests = [
        { kind: 'summary' },
        { kind: 'full', maxChars: 1e9 },
        { kind: 'full', maxChars: 100 },
        { kind: 'section', section: 'edges', offset: 2, limit: 3 },
        { kind: 'decision', decision: doc.decisions[0].id },
        { kind: 'variant', id: doc.variants[0].id },
        { kind: 'outcome', id: doc.outcomes[0].end_activity },
      ] as const;
      for (const r of requests) expect(await pool.view([kept], r)).toEqual(await viewInProcess([kept], r));
      const section = await pool.view([kept], { kind: 'section', section: 'edges', offset: 2, limit: 3 });
      expect(section).toEqual({ total: doc.edges.length, items: doc.edges.slice(2, 5) });
      expect((await pool.view([kept], { kind: 'full', maxChars: 100 })).document).toBeUndefined();
      expect((await pool.view([kept], { kind: 'full', maxChars: 1e9 })).document).toEqual(doc);
      const diff = await pool.view([kept, fresh], { kind: 'diff', limit: 5 });
      expect(diff).toEqual(await viewInProcess([kept, fresh], { kind: 'diff', limit: 5 }));
      expect((diff.source as any).cases).toEqual({ from: 300, to: 320 });
      const error = await pool.view([kept], { kind: 'decision', decision: 'nowhere' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect([(error as ApiError).code, (error as ApiError).message]).toEqual(['not_found', expect.stringMatching(/^no decision 'nowhere'/)]);
    } finally {
      await pool.close();
    }
  }, 60_000);

  it('answers a build past its budget with 503 unavailable', async () => {
    // One millisecond is less than a worker thread takes to start.
    const pool = documentPool({ threads: 1, budgetMs: 1 });
    try {
      const error = await pool.build(fromSnapshot).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect([(error as ApiError).status, (error as ApiError).code]).toEqual([503, 'unavailable']);
    } finally {
      await pool.close();
    }
  }, 60_000);
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { simulate } from '../../connectors/simulator/index.js';
import { ProjectStore } from '../../engine/index.js';
import { buildInProcess, ProjectRegistry } from '../../engine/projects/index.js';
import { scopedSnapshot } from '../../engine/projects/scope.js';
import { documentPool } from '../../api/document-pool.js';
import { ApiError } from '../../api/errors.js';

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

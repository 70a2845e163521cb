import { afterAll, describe, expect, it } from 'vitest';
import { call, events, holdThread, makeTenant, testApp, type TestApp } from './helpers.js';

/**
 * Fair builds (engine/projects/graphs.ts, api/routes/graph.ts): while a project's document builds, a request for a
 * newer version is answered at once with the newest kept document, marked stale with the current version in
 * headers (the document's shape is the contract's, untouched); once the build is done the fresh one is served.
 * The build is held back deterministically by a task occupying the project's build lane in the app's fair queue.
 */
describe('a busy project’s graph', () => {
  const apps: TestApp[] = [];
  afterAll(async () => {
    for (const a of apps) await a.close();
  });

  it('is answered stale at once while its one build runs, then fresh', async () => {
    // Three threads: a tenant may hold two, the blocker below and its own ingestion.
    const t = testApp({ buildThreads: 3 });
    apps.push(t);
    const w = await makeTenant(t.app, 'stale');
    const base = `/api/${w.tenantId}/project/${w.projectId}`;
    const all = events(30);
    expect((await call(t.app, 'POST', `${base}/events`, w.admin, all.slice(0, 30))).status).toBe(200);
    const v1 = await call(t.app, 'GET', `${base}/graph`, w.admin);
    expect([v1.status, v1.headers.etag, v1.headers['x-pcg-stale']]).toEqual([200, '"1"', undefined]);

    // Hold the project's build lane.
    const { release, blocker } = await holdThread(t, w);

    expect((await call(t.app, 'POST', `${base}/events`, w.admin, all.slice(30, 60))).status).toBe(200);
    // The first request for version 2 starts its build, which waits behind the blocker.
    let firstDone = false;
    const first = call(t.app, 'GET', `${base}/graph`, w.admin).then((r) => {
      firstDone = true;
      return r;
    });
    expect((await call(t.app, 'POST', `${base}/events`, w.admin, all.slice(60))).status).toBe(200);
    // Version 3 now, with version 2's build under way: the kept version 1 at once, marked stale.
    const stale = await call(t.app, 'GET', `${base}/graph`, w.admin);
    expect([stale.status, stale.headers.etag, stale.headers['x-pcg-stale'], stale.headers['x-pcg-current-version']]).toEqual([200, '"1"', 'true', '3']);
    expect(stale.text).toBe(v1.text);
    expect(JSON.parse(stale.text).source.data_version).toBe('1');
    // Its ETag is still a validator of what was sent.
    const notModified = await call(t.app, 'GET', `${base}/graph`, w.admin, undefined, { 'if-none-match': '"1"' });
    expect([notModified.status, notModified.headers['x-pcg-stale']]).toEqual([304, 'true']);
    expect(firstDone).toBe(false);

    release();
    await blocker;
    const built = await first;
    expect([built.status, built.headers['x-pcg-stale']]).toEqual([200, undefined]);
    // The first request's build took its snapshot when it ran, after version 3 was written.
    expect(Number(JSON.parse(built.text).source.data_version)).toBeGreaterThanOrEqual(2);
    const fresh = await call(t.app, 'GET', `${base}/graph`, w.admin);
    expect([fresh.status, fresh.headers.etag, fresh.headers['x-pcg-stale']]).toEqual([200, '"3"', undefined]);
    expect(JSON.parse(fresh.text).source.events).toBe(all.length);
  });

  it('waits for the first build of a project, having nothing older to serve', async () => {
    const t = testApp({ buildThreads: 3 });
    apps.push(t);
    const w = await makeTenant(t.app, 'first');
    const base = `/api/${w.tenantId}/project/${w.projectId}`;
    expect((await call(t.app, 'POST', `${base}/events`, w.admin, events(5))).status).toBe(200);
    const [a, b] = await Promise.all([call(t.app, 'GET', `${base}/graph`, w.admin), call(t.app, 'GET', `${base}/graph`, w.admin)]);
    expect([a.status, a.headers.etag, a.headers['x-pcg-stale'], b.status, b.headers.etag, b.headers['x-pcg-stale']]).toEqual([200, '"1"', undefined, 200, '"1"', undefined]);
    expect(a.text).toBe(b.text);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, events, expectError, makeTenant, testApp, type TestApp, type World } from './helpers.js';

describe('investigations, notebooks, blocks, dashboards', () => {
  let t: TestApp;
  let a: World;
  let base: string;
  beforeAll(async () => {
    t = testApp();
    a = await makeTenant(t.app, 'x');
    base = `/api/${a.tenantId}/project/${a.projectId}`;
    await call(t.app, 'POST', `${base}/events`, a.admin, events(12));
  });
  afterAll(() => t.close());

  it('runs a notebook: blocks in order, filters narrowing what follows', async () => {
    const inv = await call(t.app, 'POST', `${base}/investigation`, a.admin, { name: 'south', description: 'south only', scope: { attributes: { region: ['south'] } } });
    expect(inv.body).toMatchObject({ name: 'south', description: 'south only', scope: { attributes: { region: ['south'] } } });
    const invUrl = `${base}/investigation/${inv.body.id}`;
    expect((await call(t.app, 'GET', `${base}/investigation`, a.reader)).body.items).toHaveLength(1);
    const nb = await call(t.app, 'POST', `${invUrl}/notebook`, a.admin, { name: 'nb' });
    expect(nb.status).toBe(201);
    expect(nb.body).toMatchObject({ investigationId: inv.body.id, blockIds: [] });
    const nbUrl = `${invUrl}/notebook/${nb.body.id}`;
    const add = (spec: object) => call(t.app, 'POST', `${nbUrl}/block`, a.admin, { spec });
    const kpi1 = await add({ type: 'kpi' });
    expect(kpi1.body).toMatchObject({ name: 'kpi', position: 0, spec: { type: 'kpi' } });
    await add({ type: 'variants', limit: 5 });
    await add({ type: 'filter', scope: { variants: [['a', 'b', 'c']] } });
    await add({ type: 'kpi' });
    await add({ type: 'conformance', allowedTransitions: [['a', 'b'], ['b', 'c']], startActivities: ['a'], endActivities: ['c'] });
    await add({ type: 'graph' });
    expectError(await add({ type: 'magic' }), 400, 'validation_failed');
    expect((await call(t.app, 'GET', nbUrl, a.reader)).body.blockIds).toHaveLength(6);

    const run = await call(t.app, 'POST', `${nbUrl}/execute`, a.reader);
    expect(run.status, run.text).toBe(200);
    const [k1, v, f, k2, c, g] = run.body.results;
    // South = even cases 0..10: six cases; 2 and 8 take a→c.
    expect(k1.result).toMatchObject({ cases: 6, events: 16, activities: 3 });
    expect(v.result).toMatchObject({ cases: 6, distinct: 2, variants: [{ activities: ['a', 'b', 'c'], cases: 4 }, { activities: ['a', 'c'], cases: 2 }] });
    expect(f.result).toEqual({ cases: 4, events: 12 });
    expect(k2.result).toMatchObject({ cases: 4, events: 12, throughputHours: { p50: 0.033333 } });
    expect(c.result).toMatchObject({ cases: 4, fitting: 4, fitness: 1, deviations: [] });
    expect(g.result.document.source.cases).toBe(4);
    expect(g.dataVersion).toBe(1);

    // Alone, a block sees the investigation's scope only.
    const alone = await call(t.app, 'POST', `${nbUrl}/block/${kpi1.body.id}/execute`, a.reader);
    expect(alone.body.result.cases).toBe(6);
    const conf = await call(t.app, 'POST', `${nbUrl}/block/${run.body.results[4].blockId}/execute`, a.reader);
    expect(conf.body.result).toMatchObject({ cases: 6, fitting: 4, fitness: 0.666667, deviations: [{ from: 'a', to: 'c', cases: 2 }] });

    const moved = await call(t.app, 'PUT', `${nbUrl}/block/${kpi1.body.id}`, a.admin, { position: 10, name: 'last kpi' });
    expect(moved.body).toMatchObject({ position: 10, name: 'last kpi' });
    expect((await call(t.app, 'GET', `${nbUrl}/block`, a.reader)).body.items.at(-1).id).toBe(kpi1.body.id);

    const dash = await call(t.app, 'POST', `${base}/dashboard`, a.admin, { name: 'd', blockIds: [kpi1.body.id, run.body.results[4].blockId] });
    expect(dash.status).toBe(201);
    const results = await call(t.app, 'GET', `${base}/dashboard/${dash.body.id}/results`, a.reader);
    expect(results.body.results.map((r: { result: { cases: number } }) => r.result.cases)).toEqual([6, 6]);
    expectError(await call(t.app, 'POST', `${base}/dashboard`, a.admin, { name: 'd', blockIds: [crypto.randomUUID()] }), 400, 'validation_failed');
    expect((await call(t.app, 'PUT', `${base}/dashboard/${dash.body.id}`, a.admin, { name: 'd2' })).body).toMatchObject({ name: 'd2', blockIds: dash.body.blockIds });
    expect((await call(t.app, 'GET', `${base}/dashboard`, a.reader)).body.items).toHaveLength(1);

    // Narrowing the investigation changes every result.
    await call(t.app, 'PUT', invUrl, a.admin, { scope: { attributes: { region: ['south'] }, to: '2024-01-01T05:00:00Z' } });
    expect((await call(t.app, 'POST', `${nbUrl}/block/${kpi1.body.id}/execute`, a.reader)).body.result.cases).toBe(3);

    expect((await call(t.app, 'DELETE', `${nbUrl}/block/${kpi1.body.id}`, a.admin)).status).toBe(204);
    expectError(await call(t.app, 'GET', `${nbUrl}/block/${kpi1.body.id}`, a.reader), 404, 'not_found');
    expect((await call(t.app, 'GET', `${base}/dashboard/${dash.body.id}/results`, a.reader)).body.results).toHaveLength(1);
    expect((await call(t.app, 'DELETE', invUrl, a.admin)).status).toBe(204);
    expectError(await call(t.app, 'GET', nbUrl, a.reader), 404, 'not_found');
    expect((await call(t.app, 'DELETE', `${base}/dashboard/${dash.body.id}`, a.admin)).status).toBe(204);
  });

  it('keeps ancestry: a notebook is reachable only under its own investigation', async () => {
    const i1 = await call(t.app, 'POST', `${base}/investigation`, a.admin, { name: 'one' });
    const i2 = await call(t.app, 'POST', `${base}/investigation`, a.admin, { name: 'two' });
    expect(i1.body.scope).toEqual({});
    const nb = await call(t.app, 'POST', `${base}/investigation/${i1.body.id}/notebook`, a.admin, { name: 'nb' });
    expectError(await call(t.app, 'GET', `${base}/investigation/${i2.body.id}/notebook/${nb.body.id}`, a.reader), 404, 'not_found');
    expect((await call(t.app, 'PUT', `${base}/investigation/${i1.body.id}/notebook/${nb.body.id}`, a.admin, { name: 'renamed' })).body.name).toBe('renamed');
    expect((await call(t.app, 'GET', `${base}/investigation/${i1.body.id}/notebook`, a.reader)).body.items).toHaveLength(1);
    expect((await call(t.app, 'DELETE', `${base}/investigation/${i1.body.id}/notebook/${nb.body.id}`, a.admin)).status).toBe(204);
    expectError(await call(t.app, 'POST', `${base}/investigation`, a.admin, { name: 'bad', scope: { from: 'yesterday' } }), 400, 'validation_failed');
  });
});

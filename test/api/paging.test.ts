import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, events, expectError, GLOBAL, makeTenant, openCluster, testApp, type TestApp, type World } from './helpers.js';

/**
 * Issue 32, L1: every list endpoint answers a page, `{items, nextCursor}`,
 * `limit` items at most (default PCG_PAGE_SIZE, at most PCG_PAGE_SIZE_MAX)
 * after `cursor`. Following the cursors gives the whole list once, in its
 * order, while records are made and deleted meanwhile.
 */

/** Every page of a list, `limit` at a time: the items in order and the pages' sizes. */
async function walk(t: TestApp, url: string, key: string, limit: number): Promise<{ items: any[]; pages: number[] }> {
  const items: any[] = [];
  const pages: number[] = [];
  let cursor: string | null = null;
  do {
    const r = await call(t.app, 'GET', `${url}${url.includes('?') ? '&' : '?'}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, key);
    expect(r.status, `${url}: ${r.text}`).toBe(200);
    expect(Object.keys(r.body).sort(), url).toEqual(['items', 'nextCursor']);
    expect(r.body.items.length).toBeLessThanOrEqual(limit);
    items.push(...r.body.items);
    pages.push(r.body.items.length);
    cursor = r.body.nextCursor;
    expect(pages.length).toBeLessThan(1000);
  } while (cursor);
  return { items, pages };
}

describe('paging: every list', () => {
  let t: TestApp;
  let w: World;
  let base: string;
  let inv: string;
  let nb: string;
  beforeAll(async () => {
    t = testApp({ pageSize: 4, pageSizeMax: 50, kafkaClusters: openCluster() });
    w = await makeTenant(t.app, 'paging');
    await makeTenant(t.app, 'paging-2');
    base = `/api/${w.tenantId}/project/${w.projectId}`;
    for (let i = 0; i < 4; i++) await call(t.app, 'POST', `/api/${w.tenantId}/project`, w.admin, { name: `p${i}` });
    for (let i = 0; i < 3; i++) await call(t.app, 'POST', `/api/${w.tenantId}/apikey`, w.admin, { userId: w.readerUserId, name: `k${i}`, permissions: ['read'] });
    for (let i = 0; i < 3; i++) await call(t.app, 'POST', '/admin/global-api-keys', GLOBAL, { name: `g${i}` });
    inv = (await call(t.app, 'POST', `${base}/investigation`, w.admin, { name: 'i0' })).body.id;
    for (let i = 1; i < 6; i++) await call(t.app, 'POST', `${base}/investigation`, w.admin, { name: `i${i}` });
    for (let i = 0; i < 5; i++) nb = (await call(t.app, 'POST', `${base}/investigation/${inv}/notebook`, w.admin, { name: `n${i}` })).body.id;
    for (let i = 0; i < 7; i++) await call(t.app, 'POST', `${base}/investigation/${inv}/notebook/${nb}/block`, w.admin, { name: `b${i}`, spec: { type: 'kpi' } });
    for (let i = 0; i < 5; i++) await call(t.app, 'POST', `${base}/dashboard`, w.admin, { name: `d${i}` });
    for (let i = 0; i < 5; i++) {
      await call(t.app, 'POST', `${base}/events`, w.admin, events(1, Date.UTC(2024, 0, 1 + i)).map((e: any) => ({ ...e, eventId: `${i}-${e.eventId}`, caseId: `${i}-${e.caseId}` })));
      await call(t.app, 'GET', `${base}/graph`, w.reader);
    }
    await call(t.app, 'PUT', `/admin/kafka-clusters/local/tenants/${w.tenantId}`, GLOBAL);
    for (let i = 0; i < 3; i++) await call(t.app, 'POST', `${base}/source`, w.admin, { cluster: 'local', topic: `topic-${i}` });
    const ndjson = `${JSON.stringify(events(1)[0])}\n`;
    for (let i = 0; i < 3; i++) await call(t.app, 'POST', `${base}/dataset?format=ndjson&name=d${i}`, w.admin, ndjson, { 'content-type': 'application/octet-stream' });
  });
  afterAll(() => t.close());

  const lists = (): [string, string, string, number][] => [
    // url, key, the field that names an item, items expected
    ['/api/tenant', GLOBAL, 'id', 2],
    ['/api/user', GLOBAL, 'id', 4],
    [`/api/tenant/${w.tenantId}/user`, GLOBAL, 'userId', 2],
    [`/api/tenant/${w.tenantId}/apikey`, GLOBAL, 'id', 5],
    [`/api/${w.tenantId}/apikey`, w.admin, 'id', 5],
    ['/admin/global-api-keys', GLOBAL, 'id', 4],
    [`/api/${w.tenantId}/project`, w.reader, 'id', 5],
    [`${base}/dataset`, w.reader, 'id', 3],
    [`${base}/investigation`, w.reader, 'id', 6],
    [`${base}/investigation/${inv}/notebook`, w.reader, 'id', 5],
    [`${base}/investigation/${inv}/notebook/${nb}/block`, w.reader, 'id', 7],
    [`${base}/dashboard`, w.reader, 'id', 5],
    [`${base}/graph/versions`, w.reader, 'dataVersion', 5],
    [`${base}/source`, w.reader, 'id', 3],
    ['/admin/kafka-clusters', GLOBAL, 'name', 1],
    ['/admin/kafka-clusters/local/topics', GLOBAL, 'topic', 3],
    [`/api/${w.tenantId}/kafka-cluster`, w.reader, 'name', 1],
  ];

  it('answers each list a page at a time; following the cursors gives the whole list once, in its order', async () => {
    for (const [url, key, id, count] of lists()) {
      const whole = await call(t.app, 'GET', `${url}?limit=50`, key);
      expect(whole.body.items.map((i: any) => i[id]), url).toHaveLength(count);
      expect(whole.body.nextCursor, url).toBeNull();
      for (const limit of [1, 2, 3]) {
        const { items, pages } = await walk(t, url, key, limit);
        expect(items.map((i: any) => i[id]), `${url} by ${limit}`).toEqual(whole.body.items.map((i: any) => i[id]));
        expect(pages.slice(0, -1).every((n) => n === limit), `${url} by ${limit}: ${pages}`).toBe(true);
        expect(pages.length).toBe(Math.max(1, Math.ceil(count / limit)));
      }
    }
  });

  it('answers PCG_PAGE_SIZE items without a limit and refuses a limit over PCG_PAGE_SIZE_MAX or a cursor it did not give', async () => {
    const first = await call(t.app, 'GET', `${base}/investigation`, w.reader);
    expect(first.body.items.map((i: any) => i.name)).toEqual(['i0', 'i1', 'i2', 'i3']);
    expect(typeof first.body.nextCursor).toBe('string');
    const big = await call(t.app, 'GET', `${base}/investigation?limit=51`, w.reader);
    expectError(big, 400, 'validation_failed');
    expect(big.body.message).toBe('query.limit: must be at most 50 (PCG_PAGE_SIZE_MAX)');
    expectError(await call(t.app, 'GET', `${base}/investigation?limit=0`, w.reader), 400, 'validation_failed');
    for (const cursor of ['nonsense', Buffer.from('{"a":1}').toString('base64url'), Buffer.from('[1,"x"]').toString('base64url')]) {
      const r = await call(t.app, 'GET', `${base}/investigation?cursor=${cursor}`, w.reader);
      expectError(r, 400, 'validation_failed');
      expect(r.body.message).toBe('query.cursor: not a cursor of this list (pass the nextCursor of its previous page)');
    }
    // A project list's cursor (time, id) is not one of the investigations' (position, time, id).
    const projects = await call(t.app, 'GET', `/api/${w.tenantId}/project?limit=1`, w.reader);
    expectError(await call(t.app, 'GET', `${base}/investigation?cursor=${projects.body.nextCursor}`, w.reader), 400, 'validation_failed');
  });

  it('goes on from where the page ended when items before the cursor are deleted and new ones made', async () => {
    const page1 = await call(t.app, 'GET', `${base}/dashboard?limit=2`, w.reader);
    expect(page1.body.items.map((d: any) => d.name)).toEqual(['d0', 'd1']);
    await call(t.app, 'DELETE', `${base}/dashboard/${page1.body.items[0].id}`, w.admin);
    await call(t.app, 'DELETE', `${base}/dashboard/${page1.body.items[1].id}`, w.admin);
    await call(t.app, 'POST', `${base}/dashboard`, w.admin, { name: 'd5' });
    const rest = await call(t.app, 'GET', `${base}/dashboard?limit=10&cursor=${page1.body.nextCursor}`, w.reader);
    expect(rest.body.items.map((d: any) => d.name)).toEqual(['d2', 'd3', 'd4', 'd5']);
    expect(rest.body.nextCursor).toBeNull();
  });

  it('lists blocks in notebook order across pages after one is moved', async () => {
    const url = `${base}/investigation/${inv}/notebook/${nb}/block`;
    const all = (await call(t.app, 'GET', `${url}?limit=50`, w.reader)).body.items;
    await call(t.app, 'PUT', `${url}/${all[6].id}`, w.admin, { position: 0 });
    const { items } = await walk(t, url, w.reader, 2);
    expect(items.map((b: any) => b.position)).toEqual([...items.map((b: any) => b.position)].sort((a, b) => a - b));
    expect(items.map((b: any) => b.name).sort()).toEqual(all.map((b: any) => b.name).sort());
    expect(items[0].name).toBe('b0');
  });
});

describe('paging: a long list', () => {
  it('answers 2,000 investigations 100 at a time by default, the last page found by its cursor', async () => {
    const t = testApp();
    try {
      const w = await makeTenant(t.app, 'many');
      const { investigations } = t.context.catalog;
      for (let i = 0; i < 2000; i++) investigations.create(w.tenantId, w.projectId, null, `i${i}`, { description: '', scope: {} });
      const url = `/api/${w.tenantId}/project/${w.projectId}/investigation`;
      const first = await call(t.app, 'GET', url, w.reader);
      expect(first.body.items).toHaveLength(100);
      expect(first.body.items[0].name).toBe('i0');
      const { items, pages } = await walk(t, url, w.reader, 1000);
      expect(pages).toEqual([1000, 1000]);
      expect(items[1999].name).toBe('i1999');
      expectError(await call(t.app, 'GET', `${url}?limit=1001`, w.reader), 400, 'validation_failed');
    } finally {
      await t.close();
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gunzipSync } from 'node:zlib';
import { takesGzip } from '../../api/routes/graph.js';
import { validateDocument } from '../../engine/document/index.js';
import { call, events, expectError, makeTenant, testApp, type TestApp, type World } from './helpers.js';

describe('graph endpoint', () => {
  let t: TestApp;
  let a: World;
  beforeAll(async () => {
    t = testApp();
    a = await makeTenant(t.app, 'g');
  });
  afterAll(() => t.close());
  const graph = (query = '', headers: Record<string, string> = {}) => call(t.app, 'GET', `/api/${a.tenantId}/project/${a.projectId}/graph${query}`, a.reader, undefined, headers);

  it('serves the document with ETag = data_version, 304 on If-None-Match, and reflects ingestion', async () => {
    const empty = await graph();
    expect(empty.status).toBe(200);
    expect(empty.headers.etag).toBe('"0"');
    expect(empty.body.schema).toBe('service.process-context-graph');
    expect(empty.body.source.events).toBe(0);

    const ingest = await call(t.app, 'POST', `/api/${a.tenantId}/project/${a.projectId}/events`, a.admin, events(9));
    expect(ingest.body.accepted).toBe(24);
    const g = await graph();
    expect(g.headers.etag).toBe('"1"');
    expect(g.body.source).toMatchObject({ data_version: '1', cases: 9, events: 24 });
    expect(validateDocument(g.body).problems).toEqual([]);
    const same = await graph('', { 'if-none-match': '"1"' });
    expect(same.status).toBe(304);
    expect(same.text).toBe('');
    expect(same.headers.etag).toBe('"1"');
    expect((await graph('', { 'if-none-match': '"0"' })).status).toBe(200);
    expect((await graph('', { 'if-none-match': 'W/"1", "7"' })).status).toBe(304);
  });

  it('keeps each served version: ?version=V answers the same bytes, /versions lists them', async () => {
    const v1 = await graph();
    await call(t.app, 'POST', `/api/${a.tenantId}/project/${a.projectId}/events`, a.admin, events(12).slice(24));
    const v2 = await graph();
    expect(v2.headers.etag).toBe('"2"');
    expect(v2.body.source.cases).toBe(12);
    const again = await graph('?version=1');
    expect(again.text).toBe(v1.text);
    expect(again.headers.etag).toBe('"1"');
    const versions = await call(t.app, 'GET', `/api/${a.tenantId}/project/${a.projectId}/graph/versions`, a.reader);
    expect(versions.body.items.map((v: { dataVersion: number }) => v.dataVersion)).toEqual([0, 1, 2]);
    expectError(await graph('?version=99'), 404, 'not_found');
    expectError(await graph('?version=x'), 400, 'validation_failed');
    expectError(await graph('?bogus=1'), 400, 'validation_failed');
  });

  it('sends the kept (gzip-compressed) document as stored to clients that take gzip, and as text to the others', async () => {
    const url = `/api/${a.tenantId}/project/${a.projectId}/graph`;
    const get = (encoding?: string) => t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${a.reader}`, ...(encoding === undefined ? {} : { 'accept-encoding': encoding }) } });
    const plain = await get();
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toBe('accept-encoding');
    for (const encoding of ['gzip', 'gzip, deflate, br', 'br;q=1.0, gzip;q=0.8', '*']) {
      const packed = await get(encoding);
      expect(packed.headers['content-encoding'], encoding).toBe('gzip');
      expect(packed.headers.etag).toBe(plain.headers.etag);
      // The same bytes as the text answer, compressed (and far fewer of them).
      expect(gunzipSync(packed.rawPayload).toString('utf8')).toBe(plain.body);
      expect(packed.rawPayload.length).toBeLessThan(plain.body.length / 3);
    }
    for (const encoding of ['identity', 'gzip;q=0', 'br', '*;q=0', 'gzip;q=0, *']) expect((await get(encoding)).headers['content-encoding'], encoding).toBeUndefined();
    expect(takesGzip('gzip;q=0, *')).toBe(false);
    expect(takesGzip('deflate, *;q=0.5')).toBe(true);
    // A kept version too; 304 stays a 304.
    expect(gunzipSync((await t.app.inject({ method: 'GET', url: `${url}?version=1`, headers: { authorization: `Bearer ${a.reader}`, 'accept-encoding': 'gzip' } })).rawPayload).toString()).toBe((await graph('?version=1')).text);
    expect((await graph('', { 'if-none-match': String(plain.headers.etag), 'accept-encoding': 'gzip' })).status).toBe(304);
  });

  it('applies an investigation scope through the same builder', async () => {
    const inv = await call(t.app, 'POST', `/api/${a.tenantId}/project/${a.projectId}/investigation`, a.admin, {
      name: 'north, short path',
      scope: { attributes: { region: ['north'] }, variants: [['a', 'c']] },
    });
    expect(inv.status).toBe(201);
    const g = await graph(`?investigation=${inv.body.id}`);
    expect(g.status).toBe(200);
    // Cases 0..11: odd ones are north; i % 3 == 2 take a→c: 5 and 11.
    expect(g.body.source).toMatchObject({ cases: 2, events: 4 });
    expect(g.headers.etag).toMatch(/^"2-[0-9a-f]{12}"$/);
    expect((await graph(`?investigation=${inv.body.id}`, { 'if-none-match': String(g.headers.etag) })).status).toBe(304);
    expectError(await graph(`?investigation=${crypto.randomUUID()}`), 404, 'not_found');
  });

  it('streams a version event over SSE and another after ingestion', async () => {
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const controller = new AbortController();
    const res = await fetch(`${address}/api/${a.tenantId}/project/${a.projectId}/graph/stream?include=document`, {
      headers: { authorization: `Bearer ${a.reader}` },
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    expect(res.headers.get('x-request-id')).toBeTruthy();
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    const next = async () => {
      while (!buffer.includes('\n\n')) {
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        buffer += decoder.decode(value, { stream: true });
      }
      const [message, ...rest] = buffer.split('\n\n');
      buffer = rest.join('\n\n');
      const data = message!.split('\n').find((l) => l.startsWith('data: '))!.slice(6);
      return { message: message!, data: JSON.parse(data) };
    };
    const first = await next();
    expect(first.message).toContain('event: version');
    expect(first.data.dataVersion).toBe(2);
    expect(first.data.document.source.cases).toBe(12);
    await call(t.app, 'POST', `/api/${a.tenantId}/project/${a.projectId}/events`, a.admin, [{ caseId: 'late', activity: 'a', timestamp: '2024-03-01T00:00:00Z' }]);
    const second = await next();
    expect(second.data.dataVersion).toBe(3);
    expect(second.data.document.source.cases).toBe(13);
    controller.abort();
  });

  it('ends an open graph stream with an `unavailable` event when the app closes, before the catalog it checks keys against is closed', async () => {
    const own = testApp();
    const w = await makeTenant(own.app, 'closing');
    const address = await own.app.listen({ host: '127.0.0.1', port: 0 });
    const res = await fetch(`${address}/api/${w.tenantId}/project/${w.projectId}/graph/stream`, { headers: { authorization: `Bearer ${w.reader}` } });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('event: version')) text += decoder.decode((await reader.read()).value, { stream: true });
    // A key check after the catalog closed would throw from the stream's timer: the hook ends the stream first.
    const uncaught: unknown[] = [];
    const onUncaught = (e: unknown) => uncaught.push(e);
    process.on('uncaughtException', onUncaught);
    try {
      const closed = own.close();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      await closed;
      expect(text).toContain('event: error\ndata: {"error":"unavailable","message":"the server is shutting down; reconnect later"}');
      // A stream opened once closing began is ended at once too (the signal stays aborted).
      expect(own.context.closing.aborted).toBe(true);
      await new Promise((r) => setTimeout(r, 50));
      expect(uncaught).toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  });
});

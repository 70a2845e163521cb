import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { GLOBAL, testApp, type TestApp } from './helpers.js';

/** Every failure leaves in the error format with a request id: router errors, unsupported methods, Node's own rejections. */
describe('the error boundary', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });
  const get = (method: string, url: string) => t!.app.inject({ method: method as 'GET', url, headers: { authorization: `Bearer ${GLOBAL}` } });

  it('answers router errors in the error format', async () => {
    t = testApp();
    for (const [url, message] of [
      ['/api/Action/ping%zz', 'the URL is malformed'],
      [`/api/${'x'.repeat(300)}/project`, 'a path segment is longer than allowed'],
    ] as const) {
      const r = await get('GET', url);
      expect([r.statusCode, r.json().error, r.json().message]).toEqual([400, 'validation_failed', message]);
      expect(r.json().requestId).toBe(r.headers['x-request-id']);
    }
  });

  it('answers a method a path does not serve with 405 and Allow', async () => {
    t = testApp();
    const r = await get('PATCH', '/api/Action/ping');
    expect([r.statusCode, r.headers.allow, r.json().error]).toEqual([405, 'GET, HEAD', 'method_not_allowed']);
    const tenants = await get('PUT', '/api/tenant');
    expect([tenants.statusCode, tenants.headers.allow]).toEqual([405, 'POST, GET, HEAD']);
    expect((await get('GET', '/api/no/such/thing')).statusCode).toBe(404);
  });

  it('reads GUIDs in any letter case as the same id', async () => {
    t = testApp();
    const created = await t.app.inject({ method: 'POST', url: '/api/tenant', headers: { authorization: `Bearer ${GLOBAL}` }, payload: { name: 'Acme' } });
    const id = created.json().id as string;
    const r = await get('GET', `/api/tenant/${id.toUpperCase()}`);
    expect([r.statusCode, r.json().id, r.json().name]).toEqual([200, id, 'Acme']);
  });

  it("answers requests Node rejects before routing (headers over the limit) in the error format", async () => {
    t = testApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as { port: number };
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(`GET /api/Action/ping HTTP/1.1\r\nhost: 127.0.0.1\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`));
      let text = '';
      socket.on('data', (d) => (text += d.toString()));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
    expect([body.error, body.message]).toEqual(['payload_too_large', 'the request headers are larger than allowed']);
    expect(answer).toContain(`x-request-id: ${body.requestId}`);
  });
});

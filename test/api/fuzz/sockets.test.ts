import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Prng } from '../../tools/fuzz.js';
import { countsExactly, errorFormatProblems } from './harness.js';
import { type Fuzz, LIMITS, SEED, setUp } from './world.js';

/**
 * Raw bytes on a real socket: what Node's HTTP parser refuses before any route
 * (headers over the limit, garbage request lines, smuggling-shaped framing,
 * bad chunks and lengths, bytes that are not UTF-8) answered in the error
 * format, and the server still serving and counting only what it accepted.
 */

describe('HTTP fuzzing: raw sockets', () => {
  let f: Fuzz;
  beforeAll(async () => {
    f = await setUp();
  }, 120_000);
  afterAll(() => f?.t.close());

  /** Bytes Node's HTTP parser refuses before any route, and requests only a socket can send. */
  it(`answers raw bytes on a real socket in the error format (seed ${SEED})`, async () => {
    const { t, w, ids } = f;
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as { port: number };
    const rng = new Prng(SEED).fork('socket');
    const key = w.admin;
    const eventsPath = `/api/${w.tenantId}/project/${ids.A}/events`;
    const templates: [string, () => string | Buffer, number[]][] = [
      ['headers over the limit', () => `GET /api/Action/ping HTTP/1.1\r\nhost: 127.0.0.1\r\nx-big: ${'a'.repeat(rng.between(17_000, 60_000))}\r\n\r\n`, [431]],
      ['a URL over the header limit', () => `GET /api/Action/ping?x=${'9'.repeat(rng.between(17_000, 40_000))} HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`, [431, 414]],
      ['a garbage request line', () => `${rng.pick(['GARBAGE', 'GET', 'GET / HTTP/9.9', 'GET / HTTP/1.1 extra', '\u0000\u0001\u0002', 'FOO / HTTP/1.1'])}\r\n\r\n`, [400]],
      ['a header without a colon', () => 'GET /api/Action/ping HTTP/1.1\r\nhost: 127.0.0.1\r\nno colon here\r\n\r\n', [400]],
      ['a control character in a header value', () => `GET /api/Action/ping HTTP/1.1\r\nhost: 127.0.0.1\r\nx-a: a${rng.pick(['\u0000', '\u0001', '\u007f'])}b\r\n\r\n`, [400]],
      ['a space in a header name', () => 'GET /api/Action/ping HTTP/1.1\r\nhost: 127.0.0.1\r\nx a: b\r\n\r\n', [400]],
      ['both Content-Length and Transfer-Encoding', () => `POST ${eventsPath} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${key}\r\ncontent-type: application/json\r\ncontent-length: 2\r\ntransfer-encoding: chunked\r\n\r\n2\r\n[]\r\n0\r\n\r\n`, [400]],
      ['a broken chunk', () => `POST ${eventsPath} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${key}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n[]\r\n0\r\n\r\n`, [400]],
      ['a Content-Length that is not a number', () => `POST ${eventsPath} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${key}\r\ncontent-type: application/json\r\ncontent-length: ${rng.pick(['abc', '-1', '1.5', '2, 3'])}\r\n\r\n[]`, [400]],
      ['a Content-Length over the body limit', () => `POST ${eventsPath} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${key}\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: ${LIMITS.bodyLimitBytes + rng.between(1, 1e6)}\r\n\r\n[`, [413]],
      ['bytes that are not UTF-8 in the path', () => Buffer.concat([Buffer.from('GET /api/'), rng.pick([Buffer.from([0xff]), Buffer.from([0xc3, 0x28]), Buffer.from([0x80])]), Buffer.from(' HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n')]), [400, 404]],
      ['a bad percent-encoding in the path', () => `GET /api/${rng.pick(['%zz', '%', '%e2%82'])} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n`, [400]],
      ['two Host headers', () => 'GET /api/Action/ping HTTP/1.1\r\nhost: a\r\nhost: b\r\nconnection: close\r\n\r\n', [200, 400]],
      ['HTTP/1.0', () => 'GET /api/Action/ping HTTP/1.0\r\n\r\n', [200]],
      ['a valid ping, connection close', () => 'GET /api/Action/ping HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n', [200]],
      ['a body shorter than its Content-Length, then close', () => `POST ${eventsPath} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${key}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n[{"caseId"`, [400, 0]],
    ];
    const failures: string[] = [];
    let sentCases = 0;
    for (let i = 0; i < 48; i++) {
      const [what, make, allowed] = templates[i < templates.length ? i : rng.int(templates.length)]!;
      const request = make();
      const half = what.startsWith('a body shorter');
      const answer = await exchange(port, request, half ? 400 : 5000);
      sentCases += 1;
      const label = `seed ${SEED} socket case ${i} [${what}]`;
      if (!answer) {
        if (!allowed.includes(0)) failures.push(`${label}: no answer`);
        continue;
      }
      const head = answer.slice(0, answer.indexOf('\r\n\r\n'));
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1]);
      if (!allowed.includes(status)) failures.push(`${label}: status ${status}, expected ${allowed.join(' or ')}: ${answer.slice(0, 200)}`);
      if (!(status < 500)) failures.push(`${label}: ${status}`);
      const headers = Object.fromEntries(
        head
          .split('\r\n')
          .slice(1)
          .map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      if (!headers['x-request-id']) failures.push(`${label}: no X-Request-Id`);
      if (status >= 400) {
        const body = answer.slice(answer.indexOf('\r\n\r\n') + 4);
        for (const p of errorFormatProblems(status, headers, body.slice(0, Number(headers['content-length'] ?? body.length)), t.dir)) failures.push(`${label}: ${p}`);
      }
    }
    expect(sentCases).toBe(48);
    expect(failures).toEqual([]);
    // Still serving.
    expect(await exchange(port, 'GET /health/ready HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n', 5000)).toMatch(/^HTTP\/1\.1 200/);
  }, 60_000);

  it(`stays healthy and counts exactly what it accepted (seed ${SEED})`, () => countsExactly(f), 120_000);
});

/** Sends bytes on a fresh connection; the answer (latin1 text) once the server closes, a whole answer arrived, or `ms` passed. */
function exchange(port: number, request: string | Buffer, ms: number): Promise<string> {
  return new Promise((resolve) => {
    let data = Buffer.alloc(0);
    let finished = false;
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    const finish = () => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(data.toString('latin1'));
    };
    const timer = setTimeout(finish, ms);
    socket.on('data', (d) => {
      data = Buffer.concat([data, d]);
      const text = data.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end));
      if (length && data.length >= end + 4 + Number(length[1])) finish();
    });
    socket.on('end', finish);
    socket.on('close', finish);
    socket.on('error', finish);
  });
}

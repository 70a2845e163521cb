import { connect, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, events, makeTenant, testApp, type TestApp, type World } from './helpers.js';

/**
 * Issue 32, M2: slow and idle clients lose their socket, and one address holds
 * a bounded number, while other clients are served. Real sockets on 127.0.0.1
 * against a listening server with test-small timeouts; every wait is for a
 * condition (a socket's close, an answer), never for a fixed time.
 */

const HEADERS_MS = 300;
const BODY_MS = 400;
const IDLE_MS = 500;

interface Raw {
  socket: Socket;
  /** Everything received so far (latin1). */
  text(): string;
  /** Settles when the socket closes, with what it received and when (ms after connecting). */
  closed: Promise<{ text: string; ms: number }>;
  /** Settles once `pattern` shows in what it received. */
  received(pattern: RegExp): Promise<string>;
}

function open(port: number, localAddress = '127.0.0.1'): Raw {
  const started = performance.now();
  const socket = connect({ port, host: '127.0.0.1', localAddress });
  let data = '';
  const waiting: { pattern: RegExp; resolve: (t: string) => void }[] = [];
  socket.on('data', (d) => {
    data += d.toString('latin1');
    for (const w of waiting.splice(0)) {
      if (w.pattern.test(data)) w.resolve(data);
      else waiting.push(w);
    }
  });
  socket.on('error', () => undefined);
  const closed = new Promise<{ text: string; ms: number }>((resolve) => socket.once('close', () => resolve({ text: data, ms: performance.now() - started })));
  return {
    socket,
    text: () => data,
    closed,
    received: (pattern) =>
      pattern.test(data)
        ? Promise.resolve(data)
        : new Promise((resolve, reject) => {
            waiting.push({ pattern, resolve });
            void closed.then(() => reject(new Error(`closed before ${pattern}: ${data.slice(0, 300)}`)));
          }),
  };
}

/** Writes `chunk` every `everyMs` until the socket closes: a client that keeps the server waiting. */
function dribble(raw: Raw, chunk: string, everyMs = 50): void {
  const timer = setInterval(() => raw.socket.writable && raw.socket.write(chunk), everyMs);
  void raw.closed.then(() => clearInterval(timer));
}

/** Waits for a condition the server reaches on its own (a socket it counts going away), checking each turn. */
async function until(condition: () => boolean, what: string, deadlineMs = 10_000): Promise<void> {
  const end = performance.now() + deadlineMs;
  while (!condition()) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

function bodyOf(text: string): any {
  return JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
}

const ping = 'GET /api/Action/ping HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n';

describe('connections: timeouts and the per-address cap, on real sockets', () => {
  let t: TestApp;
  let w: World;
  let port: number;
  const sockets: Raw[] = [];
  const raw = (localAddress?: string) => {
    const r = open(port, localAddress);
    sockets.push(r);
    return r;
  };

  beforeAll(async () => {
    t = testApp({ headersTimeoutMs: HEADERS_MS, bodyTimeoutMs: BODY_MS, idleTimeoutMs: IDLE_MS, requestTimeoutMs: 20_000, connectionsPerAddress: 6 });
    w = await makeTenant(t.app, 'connections');
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as { port: number }).port;
  });
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.socket.destroy();
    await until(() => t.connections.openFrom('127.0.0.1') === 0 && t.connections.openFrom('127.0.0.2') === 0, 'the sockets of the test to close');
  });
  afterAll(() => t.close());

  it('closes a slow-header connection after PCG_HEADERS_TIMEOUT_MS with 408 in the error format, while another client is served', async () => {
    const slow = [raw(), raw(), raw()];
    for (const s of slow) {
      s.socket.write('GET /health/live HTTP/1.1\r\nhost: 127.0.0.1\r\n');
      dribble(s, 'x-slow: 1\r\n');
    }
    // Served meanwhile, on another connection.
    const live = await fetch(`http://127.0.0.1:${port}/health/live`);
    expect(live.status).toBe(200);
    for (const s of slow) {
      const { text, ms } = await s.closed;
      expect(ms).toBeGreaterThanOrEqual(HEADERS_MS - 20);
      expect(text).toMatch(/^HTTP\/1\.1 408 /);
      const body = bodyOf(text);
      expect(body.error).toBe('request_timeout');
      expect(Object.keys(body).sort()).toEqual(['error', 'message', 'requestId', 'timestamp']);
      expect(text).toMatch(new RegExp(`x-request-id: ${body.requestId}`));
    }
  });

  it('closes a slow-body connection after PCG_BODY_TIMEOUT_MS, with a key (408) and without one (after its 401)', async () => {
    const path = `/api/${w.tenantId}/project/${w.projectId}/events`;
    const withKey = raw();
    withKey.socket.write(`POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${w.admin}\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n[`);
    dribble(withKey, ' ');
    const noKey = raw();
    noKey.socket.write(`POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n[`);
    dribble(noKey, ' ');
    expect((await call(t.app, 'GET', `/api/${w.tenantId}/project/${w.projectId}`, w.reader)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${port}/api/Action/ping`)).status).toBe(200);

    const a = await withKey.closed;
    expect(a.ms).toBeGreaterThanOrEqual(BODY_MS - 20);
    expect(a.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(bodyOf(a.text).error).toBe('request_timeout');
    expect(bodyOf(a.text).message).toMatch(/limit PCG_BODY_TIMEOUT_MS/);
    const b = await noKey.closed;
    expect(b.text).toMatch(/^HTTP\/1\.1 401 /);
    expect(b.ms).toBeGreaterThanOrEqual(BODY_MS - 20);
    // Nothing of the cut body was applied.
    expect((await call(t.app, 'GET', `/api/${w.tenantId}/project/${w.projectId}`, w.reader)).body.dataVersion).toBe(0);
  });

  it('refuses the connection past PCG_CONNECTIONS_PER_ADDRESS from one address; another address is served; a freed slot is usable again', async () => {
    const held: Raw[] = [];
    for (let i = 0; i < 6; i++) {
      const s = raw();
      // Keep-alive pings: each socket is accepted and answered, and it stays open.
      s.socket.write(ping);
      await s.received(/"status":"ok"/);
      held.push(s);
    }
    expect(t.connections.openFrom('127.0.0.1')).toBe(6);
    const refused = t.connections.refused;
    const seventh = raw();
    seventh.socket.write(ping);
    const { text } = await seventh.closed;
    expect(text).toBe('');
    expect(t.connections.refused).toBe(refused + 1);
    // Another client address (the whole of 127/8 is loopback) is not held to the first one's count.
    const other = raw('127.0.0.2');
    other.socket.write(ping);
    expect(await other.received(/"status":"ok"/)).toMatch(/^HTTP\/1\.1 200 /);
    // One of the six goes: a new connection from the address is served again.
    held[0]!.socket.end();
    await held[0]!.closed;
    await until(() => t.connections.openFrom('127.0.0.1') === 5, 'the server to count the closed socket');
    const again = raw();
    again.socket.write(ping);
    expect(await again.received(/"status":"ok"/)).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('keeps a graph stream open past every timeout, and it still gets the next version', async () => {
    const stream = raw();
    stream.socket.write(`GET /api/${w.tenantId}/project/${w.projectId}/graph/stream HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${w.reader}\r\n\r\n`);
    await stream.received(/event: version\r?\ndata: \{"dataVersion":0\}/);
    // A silent socket opened now is closed by the header or idle timeout: once it is, the stream has outlived both.
    const silent = raw();
    const gone = await silent.closed;
    expect(gone.ms).toBeGreaterThanOrEqual(HEADERS_MS - 20);
    const idle = raw();
    idle.socket.write(ping);
    await idle.received(/"status":"ok"/);
    await idle.closed;
    expect(stream.socket.destroyed).toBe(false);
    expect((await call(t.app, 'POST', `/api/${w.tenantId}/project/${w.projectId}/events`, w.admin, events(2))).status).toBe(200);
    expect(await stream.received(/data: \{"dataVersion":1\}/)).toMatch(/event: version/);
  });

  it('answers a request without Host (HTTP/1.1) 400 missing_headers in the error format; HTTP/1.0 needs none', async () => {
    const bare = raw();
    bare.socket.write('GET / HTTP/1.1\r\n\r\n');
    const text = await bare.received(/\r\n\r\n\{.*\}$/s);
    expect(text).toMatch(/^HTTP\/1\.1 400 /);
    const body = bodyOf(text);
    expect(body.error).toBe('missing_headers');
    expect(body.message).toBe('the Host header is required');
    expect(Object.keys(body).sort()).toEqual(['error', 'message', 'requestId', 'timestamp']);
    expect(text).toMatch(/content-type: application\/json/i);
    const old = raw();
    old.socket.write('GET /api/Action/ping HTTP/1.0\r\n\r\n');
    expect((await old.closed).text).toMatch(/^HTTP\/1\.1 200 /);
  });
});

describe('connections: idle sockets and the total cap', () => {
  it('closes a socket idle for PCG_IDLE_TIMEOUT_MS before its first request and between two', async () => {
    // Headers may take long here: the idle timeout is what closes the silent socket.
    const t = testApp({ headersTimeoutMs: 20_000, idleTimeoutMs: 300, requestTimeoutMs: 20_000 });
    try {
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      const port = (t.app.server.address() as { port: number }).port;
      const silent = open(port);
      const a = await silent.closed;
      expect(a.text).toBe('');
      expect(a.ms).toBeGreaterThanOrEqual(280);
      const between = open(port);
      between.socket.write(ping);
      await between.received(/"status":"ok"/);
      const b = await between.closed;
      expect(b.text).toMatch(/^HTTP\/1\.1 200 /);
      expect(b.ms).toBeGreaterThanOrEqual(280);
    } finally {
      await t.close();
    }
  });

  it('closes a connection past PCG_MAX_CONNECTIONS, whatever its address', async () => {
    const t = testApp({ maxConnections: 2, connectionsPerAddress: 0 });
    try {
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      const port = (t.app.server.address() as { port: number }).port;
      const held = [open(port), open(port, '127.0.0.2')];
      for (const s of held) {
        s.socket.write(ping);
        await s.received(/"status":"ok"/);
      }
      const third = open(port, '127.0.0.3');
      third.socket.write(ping);
      expect((await third.closed).text).toBe('');
      held[0]!.socket.end();
      await held[0]!.closed;
      // Freed: once the server has counted the close, a new one is served.
      let served = '';
      for (let i = 0; i < 50 && !served; i++) {
        const next = open(port, '127.0.0.3');
        next.socket.write(ping);
        const r = await Promise.race([next.received(/"status":"ok"/), next.closed.then(() => '')]);
        served = r;
        next.socket.destroy();
      }
      expect(served).toMatch(/^HTTP\/1\.1 200 /);
      held[1]!.socket.destroy();
    } finally {
      await t.close();
    }
  });
});

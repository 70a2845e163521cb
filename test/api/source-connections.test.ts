import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../kafka/helpers.js';
import { call, expectError, makeTenant, testApp, type TestApp, type World } from './helpers.js';

/**
 * What a source connects to, seen from the other end (issue 30, M1 and L6): TCP listeners on free ports stand for
 * brokers, and count every connection pcg opens to them. The app runs its sources on their thread, as `pcg serve`.
 */

/** A listener that counts connections and keeps them open (never answering, as a host that is not Kafka), or closes each at once. */
class Listener {
  readonly sockets = new Set<Socket>();
  accepted = 0;
  private constructor(private readonly server: Server) {}

  static async open(mode: 'hold' | 'close'): Promise<Listener> {
    const server = createServer();
    const l = new Listener(server);
    server.on('connection', (s) => {
      l.accepted++;
      if (mode === 'close') return void s.destroy();
      l.sockets.add(s);
      // Read and dropped: a socket with unread data never sees its peer's end, and would look open for ever.
      s.resume();
      s.on('close', () => l.sockets.delete(s));
      s.on('error', () => undefined);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return l;
  }

  get address(): string {
    return `127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    return new Promise((r) => this.server.close(() => r()));
  }
}

/** A port nothing listens on (connections are refused). */
async function closedPort(): Promise<string> {
  const l = await Listener.open('close');
  const address = l.address;
  await l.close();
  return address;
}

describe('where sources connect', () => {
  let t: TestApp;
  let w: World;
  let undeclared: Listener;
  let silent: Listener;
  let slamming: Listener;
  let refused: string;
  let base: string;

  beforeAll(async () => {
    undeclared = await Listener.open('hold');
    silent = await Listener.open('hold');
    slamming = await Listener.open('close');
    refused = await closedPort();
    const clusters = [
      { name: 'silent', brokers: [silent.address], tenants: '*' },
      { name: 'slamming', brokers: [slamming.address], tenants: '*' },
      { name: 'refusing', brokers: [refused], tenants: '*' },
    ];
    t = testApp({ kafkaClusters: JSON.stringify(clusters) }, { runSources: true });
    w = await makeTenant(t.app, 'connections');
    base = `/api/${w.tenantId}/project/${w.projectId}/source`;
  });
  afterAll(async () => {
    await t.close();
    for (const l of [undeclared, silent, slamming]) await l.close();
  });

  const status = async (id: string) => (await call(t.app, 'GET', `${base}/${id}`, w.reader)).body.status;

  it('a source that cannot connect says so in its status at the first attempt, not after the client gives up', async () => {
    const s = await call(t.app, 'POST', base, w.admin, { cluster: 'refusing', topic: 'events' });
    expect(s.status, s.text).toBe(201);
    const seen = await eventually(async () => {
      const st = await status(s.body.id);
      return st.lastError ? st : undefined;
    }, 30_000, 'the refused connection in the status');
    expect(seen.state).toBe('starting');
    expect(seen.lastError.message).toContain(refused);
    expect(seen.lastError.message).toContain('ECONNREFUSED');
    expect((await call(t.app, 'DELETE', `${base}/${s.body.id}`, w.admin)).status).toBe(204);
  });

  it('never connects to a host no cluster declares, while it does connect to a declared one', async () => {
    const probe = await call(t.app, 'POST', base, w.admin, { brokers: [undeclared.address], topic: 'probe', format: 'pcg' });
    expectError(probe, 400, 'validation_failed');
    expect(probe.body.message).toMatch(/^body\.brokers: /);
    // A declared cluster on another listener: once the source thread has dialled it (and says the host failed), it has long
    // polled the catalog, and the undeclared listener has seen nothing.
    const declared = await call(t.app, 'POST', base, w.admin, { cluster: 'slamming', topic: 'events' });
    expect(declared.status).toBe(201);
    await eventually(async () => (slamming.accepted >= 2 && (await status(declared.body.id)).lastError ? true : undefined), 30_000, 'two attempts at the declared cluster');
    expect(undeclared.accepted).toBe(0);
    expect((await call(t.app, 'DELETE', `${base}/${declared.body.id}`, w.admin)).status).toBe(204);
  });

  it('a paused source holds no connection and opens none; a deleted one neither', async () => {
    const s = await call(t.app, 'POST', base, w.admin, { cluster: 'silent', topic: 'events' });
    expect(s.status).toBe(201);
    // The host takes the connection and never answers: kafkajs waits on it (and would retry for minutes).
    await eventually(() => (silent.sockets.size > 0 ? true : undefined), 30_000, 'a connection to the silent host');
    expect((await call(t.app, 'POST', `${base}/${s.body.id}/pause`, w.admin)).status).toBe(200);
    await eventually(() => (silent.sockets.size === 0 ? true : undefined), 30_000, 'the paused source to close its connection');
    const afterPause = silent.accepted;
    // Meanwhile a live source keeps dialling its own host: once it has tried three more times, the paused one would
    // have retried too (kafkajs backs off from 300 ms), had its connect gone on.
    const live = await call(t.app, 'POST', base, w.admin, { cluster: 'slamming', topic: 'live' });
    const from = slamming.accepted;
    await eventually(() => (slamming.accepted >= from + 3 ? true : undefined), 60_000, 'three attempts of the live source');
    expect(silent.accepted).toBe(afterPause);
    expect(silent.sockets.size).toBe(0);
    // Resumed, it connects again; deleted, it lets go again.
    expect((await call(t.app, 'POST', `${base}/${s.body.id}/resume`, w.admin)).status).toBe(200);
    await eventually(() => (silent.sockets.size > 0 ? true : undefined), 30_000, 'the resumed source to connect');
    expect((await call(t.app, 'DELETE', `${base}/${s.body.id}`, w.admin)).status).toBe(204);
    await eventually(() => (silent.sockets.size === 0 ? true : undefined), 30_000, 'the deleted source to close its connection');
    expect((await call(t.app, 'DELETE', `${base}/${live.body.id}`, w.admin)).status).toBe(204);
  });
});

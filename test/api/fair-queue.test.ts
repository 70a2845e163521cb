import { describe, expect, it } from 'vitest';
import { ApiError } from '../../api/errors.js';
import { FairQueue, type WorkKind } from '../../api/fair-queue.js';

/**
 * The fair queue with deterministic fake tasks: each task records that it started (and on which slot) and ends
 * only when the test ends it, so every order below is the queue's, never the clock's.
 */
class Fake {
  readonly started: string[] = [];
  readonly slots = new Map<string, number>();
  private readonly ends = new Map<string, () => void>();
  readonly settled: Promise<unknown>[] = [];
  constructor(readonly queue: FairQueue) {}

  submit(name: string, tenant: string, project = 'p', kind: WorkKind = 'build', signal?: AbortSignal): Promise<string> {
    const done = this.queue.run(
      tenant,
      project,
      kind,
      (slot) =>
        new Promise<string>((resolve) => {
          this.started.push(name);
          this.slots.set(name, slot);
          this.ends.set(name, () => resolve(name));
        }),
      signal,
    );
    this.settled.push(done.catch(() => undefined));
    return done;
  }

  /** Ends a running task and waits until the queue has handed its slot on. */
  async end(name: string): Promise<void> {
    const end = this.ends.get(name);
    if (!end) throw new Error(`${name} is not running`);
    this.ends.delete(name);
    end();
    // The queue hands the slot on in its promise callbacks: a few microtask turns.
    for (let i = 0; i < 10; i++) await Promise.resolve();
  }

  running(): string[] {
    return [...this.ends.keys()];
  }
}

describe('the fair queue', () => {
  it('serves tenants round-robin, whatever order their work came in', async () => {
    const f = new Fake(new FairQueue({ slots: 1, perTenant: 100 }));
    // Tenant a floods first; b and c come after with less.
    for (const name of ['a1', 'a2', 'a3', 'a4']) void f.submit(name, 'a', name);
    for (const name of ['b1', 'b2']) void f.submit(name, 'b', name);
    void f.submit('c1', 'c');
    expect(f.started).toEqual(['a1']);
    for (const name of ['a1', 'b1', 'c1', 'a2', 'b2', 'a3']) await f.end(name);
    expect(f.started).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3', 'a4']);
    await f.end('a4');
  });

  it("serves a tenant's projects round-robin, and one project's writes one at a time", async () => {
    const f = new Fake(new FairQueue({ slots: 1, perTenant: 100 }));
    for (const name of ['x1', 'x2', 'x3']) void f.submit(name, 't', 'x', 'ingest');
    for (const name of ['y1', 'y2']) void f.submit(name, 't', 'y', 'ingest');
    for (const name of ['x1', 'y1', 'x2', 'y2']) await f.end(name);
    expect(f.started).toEqual(['x1', 'y1', 'x2', 'y2', 'x3']);
    await f.end('x3');

    // With threads to spare, a project's writes still run one at a time (one writer per store file), an upload
    // among them, while another project's and another kind's work runs beside them.
    const g = new Fake(new FairQueue({ slots: 4, perTenant: 100 }));
    void g.submit('w1', 't', 'x', 'ingest');
    void g.submit('u1', 't', 'x', 'upload');
    void g.submit('w2', 't', 'x', 'ingest');
    void g.submit('b1', 't', 'x', 'build');
    void g.submit('v1', 't', 'y', 'ingest');
    expect(g.running().sort()).toEqual(['b1', 'v1', 'w1']);
    await g.end('w1');
    expect(g.running().sort()).toEqual(['b1', 'u1', 'v1']);
    await g.end('u1');
    expect(g.running().sort()).toEqual(['b1', 'v1', 'w2']);
    for (const name of ['b1', 'v1', 'w2']) await g.end(name);
  });

  it('never lets one tenant hold every thread: another tenant starts at once', async () => {
    const queue = new FairQueue({ slots: 2, perTenant: 100 });
    const f = new Fake(queue);
    for (let i = 0; i < 6; i++) void f.submit(`h${i}`, 'hog', `p${i}`);
    // Six projects, two threads: the hog holds one, the other stays free.
    expect(f.running()).toEqual(['h0']);
    expect([queue.running('hog'), queue.waiting('hog')]).toEqual([1, 5]);
    void f.submit('g1', 'good');
    expect(f.running().sort()).toEqual(['g1', 'h0']);
    // When the hog's task ends, the good tenant's next task goes before the hog's queue.
    void f.submit('g2', 'good', 'q');
    await f.end('h0');
    expect(f.running().sort()).toEqual(['g1', 'h1']);
    await f.end('g1');
    expect(f.running().sort()).toEqual(['g2', 'h1']);
    for (const name of ['g2', 'h1', 'h2', 'h3', 'h4', 'h5']) await f.end(name);
    expect(queue.running()).toBe(0);

    // With four threads a tenant takes three, never the fourth.
    const four = new Fake(new FairQueue({ slots: 4, perTenant: 100 }));
    for (let i = 0; i < 6; i++) void four.submit(`h${i}`, 'hog', `p${i}`);
    expect(four.running()).toEqual(['h0', 'h1', 'h2']);
    void four.submit('g1', 'good');
    expect(four.running()).toContain('g1');
    for (const name of ['h0', 'h1', 'h2', 'g1', 'h3', 'h4', 'h5']) await four.end(name);
  });

  it("answers 429 with Retry-After to the tenant whose queue is full, and to no other", async () => {
    const queue = new FairQueue({ slots: 2, perTenant: 2 });
    const f = new Fake(queue);
    void f.submit('h0', 'hog', 'a');
    void f.submit('h1', 'hog', 'b');
    void f.submit('h2', 'hog', 'c');
    const refused = await f.submit('h3', 'hog', 'd').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect([(refused as ApiError).status, (refused as ApiError).code, (refused as ApiError).headers['retry-after']]).toEqual([429, 'rate_limited', '1']);
    expect(queue.refused).toBe(1);
    // Asked before a body is read: the same refusal, for the full tenant only.
    expect(() => queue.admit('hog')).toThrow(ApiError);
    expect(() => queue.admit('good')).not.toThrow();
    // The other tenant is served; a place freed in the hog's queue takes work again.
    void f.submit('g1', 'good');
    void f.submit('g2', 'good', 'q');
    void f.submit('g3', 'good', 'r');
    expect(f.running().sort()).toEqual(['g1', 'h0']);
    await f.end('h0');
    expect(f.running().sort()).toEqual(['g1', 'h1']);
    await expect(Promise.race([f.submit('h4', 'hog', 'e'), Promise.resolve('queued')])).resolves.toBe('queued');
    for (const name of ['g1', 'h1', 'g2', 'h2', 'g3', 'h4']) await f.end(name);
    await Promise.all(f.settled);
    expect([queue.running(), queue.waiting()]).toEqual([0, 0]);
    expect(queue.refused).toBe(2);
  });

  it('takes an abandoned task out of the queue, and refuses waiting work when closed', async () => {
    const queue = new FairQueue({ slots: 1, perTenant: 2 });
    const f = new Fake(queue);
    void f.submit('a1', 'a');
    const gone = new AbortController();
    const abandoned = f.submit('a2', 'a', 'p', 'build', gone.signal);
    gone.abort(new Error('client left'));
    await expect(abandoned).rejects.toThrow('client left');
    expect(queue.waiting('a')).toBe(0);
    const waiting = f.submit('a3', 'a');
    queue.close();
    const error = await waiting.catch((e: unknown) => e);
    expect([(error as ApiError).status, (error as ApiError).code]).toEqual([503, 'unavailable']);
    await f.end('a1');
    expect(f.started).toEqual(['a1']);
  });

  it("sends a project's work back to the thread that last ran it when that one is free", async () => {
    const f = new Fake(new FairQueue({ slots: 2, perTenant: 100 }));
    void f.submit('x1', 't', 'x', 'ingest');
    void f.submit('y1', 'u', 'y', 'ingest');
    expect([f.slots.get('x1'), f.slots.get('y1')]).toEqual([0, 1]);
    await f.end('x1');
    await f.end('y1');
    // Both threads free: y goes back to its own (1), though 0 is the first free one.
    void f.submit('y2', 'u', 'y', 'build');
    expect(f.slots.get('y2')).toBe(1);
    void f.submit('x2', 't', 'x', 'ingest');
    expect(f.slots.get('x2')).toBe(0);
    await f.end('y2');
    await f.end('x2');
  });

  it('starts writes before builds and reads, but other work after every `writeTurns` writes while it waits', async () => {
    const f = new Fake(new FairQueue({ slots: 1, perTenant: 100, writeTurns: 2 }));
    void f.submit('hold', 'z', 'z', 'read');
    // Two tenants' builds came first, then their writes (each write of its own project: lanes run one at a time).
    void f.submit('b1', 'a', 'p', 'build');
    void f.submit('b2', 'b', 'p', 'build');
    for (const name of ['aw1', 'aw2', 'aw3']) void f.submit(name, 'a', name, 'ingest');
    for (const name of ['bw1', 'bw2']) void f.submit(name, 'b', name, 'upload');
    for (const name of ['hold', 'aw1', 'bw1', 'b1', 'aw2', 'bw2', 'b2']) await f.end(name);
    // Writes round-robin between the tenants, two at a time; then a build, round-robin too; once no build waits, writes go on.
    expect(f.started).toEqual(['hold', 'aw1', 'bw1', 'b1', 'aw2', 'bw2', 'b2', 'aw3']);
    await f.end('aw3');

    // Writes that came while no build waited do not count towards the turns.
    const g = new Fake(new FairQueue({ slots: 1, perTenant: 100, writeTurns: 2 }));
    for (const name of ['w1', 'w2', 'w3']) void g.submit(name, 'a', name, 'ingest');
    await g.end('w1');
    await g.end('w2');
    void g.submit('r1', 'b', 'p', 'read');
    void g.submit('w4', 'a', 'w4', 'ingest');
    void g.submit('w5', 'a', 'w5', 'ingest');
    for (const name of ['w3', 'w4', 'w5']) await g.end(name);
    expect(g.started).toEqual(['w1', 'w2', 'w3', 'w4', 'w5', 'r1']);
    await g.end('r1');
  });

  it('with writeTurns 0 serves writes and other work in one rotation', async () => {
    const f = new Fake(new FairQueue({ slots: 1, perTenant: 100, writeTurns: 0 }));
    void f.submit('hold', 'z', 'z', 'read');
    void f.submit('b1', 'a', 'p', 'build');
    void f.submit('w1', 'b', 'w1', 'ingest');
    void f.submit('w2', 'a', 'w2', 'ingest');
    for (const name of ['hold', 'b1', 'w1']) await f.end(name);
    // Tenant a, b, then a again (its write after its build: its lanes in turn).
    expect(f.started).toEqual(['hold', 'b1', 'w1', 'w2']);
    await f.end('w2');
  });
});

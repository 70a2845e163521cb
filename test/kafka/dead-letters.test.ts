import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, makeTenant, openCluster, testApp, type TestApp, type World } from '../api/helpers.js';
import { KafkaBroker } from './broker.js';
import { eventually, expectSameDocument, messagesOf, referenceDocument, simulatedLog } from './helpers.js';

/** Poison messages on a real topic: each becomes a dead letter with its bytes and place, and nothing else changes. */
describe('Kafka dead letters', () => {
  let broker: KafkaBroker;
  let t: TestApp;
  let w: World;

  beforeAll(async () => {
    // Room for the 1 MB junk message beside others in one produce request.
    broker = await KafkaBroker.start({ properties: { 'message.max.bytes': 4 * 1024 * 1024 } });
    t = testApp({ kafkaClusters: openCluster(broker.brokers) }, { runSources: true });
    w = await makeTenant(t.app, 'poison');
  });
  afterAll(async () => {
    await t?.close();
    await broker?.stop();
  });

  it('poison messages become dead letters; replay after fixing the mapping applies them exactly once', async () => {
    const log = simulatedLog(120, 11);
    const good = messagesOf(log, 11, 0);
    // Events whose case id sits under another name: refused until the mapping reads it.
    const renamed = simulatedLog(5, 12).map((e) => {
      const { caseId, ...rest } = e;
      return { ...rest, caseId: undefined, case: `late-${String(caseId)}`, eventId: `late-${String(e.eventId ?? e.activity)}-${String(e.timestamp)}` };
    });
    const poison = [
      { key: 'p1', value: 'not json at all' },
      { key: 'p2', value: Buffer.from([0xff, 0xfe, 0x80, 0x7b, 0x7d]) },
      { key: 'p3', value: JSON.stringify({ activity: 'x', timestamp: '2025-01-01T00:00:00Z' }) },
      { key: 'p4', value: JSON.stringify({ caseId: 'p4', activity: 'x', timestamp: 'yesterday-ish' }) },
      { key: 'p5', value: Buffer.alloc(1_000_000, 0x61) },
      { key: 'p6', value: null },
      ...renamed.map((e) => ({ key: String(e.case), value: JSON.stringify(e) })),
    ];
    await broker.createTopic('poisoned', 2);
    await broker.produce('poisoned', [...good.slice(0, 200), ...poison, ...good.slice(200)]);
    const ends = await broker.endOffsets('poisoned');

    const created = await call(t.app, 'POST', `/api/${w.tenantId}/project/${w.projectId}/source`, w.admin, { cluster: 'local', topic: 'poisoned' });
    const url = `/api/${w.tenantId}/project/${w.projectId}/source/${created.body.id}`;
    const status = await eventually(async () => {
      const s = (await call(t.app, 'GET', url, w.reader)).body.status;
      return s.partitions.length === 2 && s.partitions.every((p: any) => p.storedOffset === ends[p.partition]! - 1) ? s : undefined;
    }, 60_000, 'the topic consumed to its end');
    expect(status.deadLetters).toBe(poison.length);
    expect(status.eventsApplied).toBe(log.length);

    // Nothing but the good events counted.
    const before = (await call(t.app, 'GET', `/api/${w.tenantId}/project/${w.projectId}/graph`, w.reader)).body;
    const reference = referenceDocument(log);
    expect(before.source.log_digest).toBe(reference.source.log_digest);
    expect(before.source.events).toBe(log.length);

    const letters = (await call(t.app, 'GET', `${url}/dead-letters?limit=1000`, w.reader)).body;
    expect(letters.items).toHaveLength(poison.length);
    const reasons = letters.items.map((l: any) => l.reason).join('\n');
    expect(reasons).toMatch(/not JSON/);
    expect(reasons).toMatch(/not UTF-8/);
    expect(reasons).toMatch(/tombstone/);
    expect(reasons).toMatch(/caseId/);
    expect(reasons).toMatch(/timestamp/);
    for (const l of letters.items) expect(l.location).toMatch(/^poisoned\/[01]@\d+$/);
    const junk = letters.items.find((l: any) => Buffer.from(l.raw, 'base64').every((b: number) => b === 0x61) && l.raw.length > 0);
    expect(Buffer.from(junk.raw, 'base64').length).toBe(64 * 1024);
    const binary = letters.items.find((l: any) => /not UTF-8/.test(l.reason));
    expect([...Buffer.from(binary.raw, 'base64')]).toEqual([0xff, 0xfe, 0x80, 0x7b, 0x7d]);

    // Paging walks every letter once.
    const first = (await call(t.app, 'GET', `${url}/dead-letters?limit=4`, w.reader)).body;
    const rest = (await call(t.app, 'GET', `${url}/dead-letters?limit=1000&after=${first.next}`, w.reader)).body;
    expect([...first.items, ...rest.items].map((l: any) => l.id)).toEqual(letters.items.map((l: any) => l.id));

    // A read key cannot replay; the fixed mapping reads the case id from `case`.
    expect((await call(t.app, 'POST', `${url}/dead-letters/replay`, w.reader)).status).toBe(403);
    const fixed = await call(t.app, 'PUT', url, w.admin, { mapping: { caseId: 'case' } });
    expect(fixed.status).toBe(200);
    expect(fixed.body.mapping).toEqual({ caseId: 'case' });
    const replay = await call(t.app, 'POST', `${url}/dead-letters/replay`, w.admin);
    expect(replay.body).toMatchObject({ replayed: renamed.length, failing: poison.length - renamed.length });
    const again = await call(t.app, 'POST', `${url}/dead-letters/replay`, w.admin);
    expect(again.body).toMatchObject({ replayed: 0, failing: poison.length - renamed.length });

    const after = (await call(t.app, 'GET', `/api/${w.tenantId}/project/${w.projectId}/graph`, w.reader)).body;
    const fixedEvents = renamed.map(({ case: c, caseId: _drop, ...e }) => ({ ...e, caseId: c }));
    const expected = referenceDocument([...log, ...fixedEvents] as never);
    // The letters still refused are the only difference, and the document says so.
    const note = `${poison.length - renamed.length} records were refused (not parsed, mapped or valid; kept as dead letters) and are not counted.`;
    expect(after.assumptions).toContain(note);
    expectSameDocument({ ...after, assumptions: after.assumptions.filter((a: unknown) => a !== note) }, expected);
    const left = (await call(t.app, 'GET', url, w.reader)).body.status;
    expect(left.deadLetters).toBe(poison.length - renamed.length);
  }, 120_000);
});

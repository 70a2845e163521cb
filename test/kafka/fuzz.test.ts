import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileMapping } from '../../connectors/kafka/index.js';
import { checkEvent, eventLimits, type WireEvent } from '../../engine/index.js';
import { call, makeTenant, openCluster, testApp, type TestApp, type World } from '../api/helpers.js';
import { fuzzSeed, INVALID_UTF8, nestedJson, Prng, textOfBytes } from '../tools/fuzz.js';
import { KafkaBroker, type ProducedMessage } from './broker.js';
import { eventually, expectSameDocument, messagesOf, referenceDocument, simulatedLog } from './helpers.js';

/**
 * A seeded fuzzer of the Kafka door, on a real broker: a topic carrying valid
 * events (shuffled, some sent twice) and poison messages of every kind a
 * producer gets wrong (random bytes, text that is not UTF-8, JSON of the wrong
 * shape, events over a limit, tombstones, bad timestamps, NUL and lone
 * surrogates, nesting too deep to write back). Each poison becomes exactly one
 * dead letter, with its bytes and a reason of its kind; the valid events are
 * counted exactly (the document equals that of the valid events alone); the
 * source keeps running and takes what comes after. PCG_FUZZ_SEED=<seed>
 * replays a run.
 */

const SEED = fuzzSeed();
const LIMITS = { limitIdBytes: 64, limitActivityBytes: 48, limitAttributeValueBytes: 256, limitAttributesPerEvent: 8 } as const;

interface Poison extends ProducedMessage {
  kind: string;
  /** The reason its dead letter must give. */
  reason: RegExp;
}

/** Poison messages, each of a kind with the reason it must be refused for. */
function poisons(rng: Prng, valid: readonly WireEvent[], count: number): Poison[] {
  const base = (): Record<string, unknown> => ({ ...(rng.pick(valid) as unknown as Record<string, unknown>), caseId: `poison-${rng.word(6)}`, eventId: `poison-${rng.word(10)}` });
  const json = (v: unknown) => JSON.stringify(v);
  const map = compileMapping('pcg');
  const limits = eventLimits({ idBytes: LIMITS.limitIdBytes, activityBytes: LIMITS.limitActivityBytes, attributeValueBytes: LIMITS.limitAttributeValueBytes, attributesPerEvent: LIMITS.limitAttributesPerEvent });
  const makers: [string, () => Omit<Poison, 'kind'> | undefined][] = [
    [
      'random bytes',
      () => {
        const value = rng.bytes(rng.between(1, 300));
        // Random bytes that happen to be a valid event are not poison (they never are, in practice).
        const m = map(value);
        if ('record' in m && checkEvent(m.record, limits).ok) return undefined;
        return { value, reason: /not UTF-8|not JSON|not a JSON object|:/ };
      },
    ],
    [
      'not UTF-8',
      () => {
        const text = Buffer.from(json(base()));
        const at = rng.between(1, text.length - 1);
        return { value: Buffer.concat([text.subarray(0, at), rng.pick(INVALID_UTF8), text.subarray(at)]), reason: /^not UTF-8 text$/ };
      },
    ],
    ['not JSON', () => ({ value: rng.pick(['not json at all', '{"caseId":', '{caseId: "x"}', "{'a':1}", '', '   ', 'NaN', '{"a":1}{"b":2}', json(base()).slice(0, -1)]), reason: /^not JSON: / })],
    ['not an object', () => ({ value: rng.pick(['[]', '[{"caseId":"x","activity":"a","timestamp":0}]', '1', '"event"', 'true', 'null', nestedJson(rng.pick([10, 6000]))]), reason: /^not a JSON object$/ })],
    ['tombstone', () => ({ value: null, reason: /^tombstone/ })],
    [
      'wrong shape',
      () => {
        const e = base();
        const change = rng.pick(['no caseId', 'no activity', 'no timestamp', 'caseId number', 'activity object', 'unknown field', 'attributes array', 'objects string', 'nested value', '__proto__ key', 'duplicate key']);
        if (change === 'no caseId') delete e.caseId;
        if (change === 'no activity') delete e.activity;
        if (change === 'no timestamp') delete e.timestamp;
        if (change === 'caseId number') e.caseId = 12.5;
        if (change === 'activity object') e.activity = { name: 'x' };
        if (change === 'unknown field') e.extra = true;
        if (change === 'attributes array') e.attributes = ['a'];
        if (change === 'objects string') e.objects = 'o1';
        if (change === 'nested value') e.attributes = { deep: { a: 1 } };
        let value = json(e);
        if (change === '__proto__ key') value = value.replace('{', '{"__proto__":{"polluted":true},');
        // The last of two values under one key counts (JSON.parse): the wrong one last.
        if (change === 'duplicate key') value = value.replace(/}$/, ',"activity":{"wrong":1}}');
        return { value, reason: /./ };
      },
    ],
    [
      'over a limit',
      () => {
        const e = base();
        const which = rng.pick(['caseId', 'activity', 'attribute value', 'attributes', 'object id', 'huge']);
        if (which === 'caseId') e.caseId = textOfBytes(LIMITS.limitIdBytes + rng.between(1, 3), rng.pick(['x', 'é', '€']));
        if (which === 'activity') e.activity = textOfBytes(LIMITS.limitActivityBytes + rng.between(1, 3), rng.pick(['x', 'é', '😀']));
        if (which === 'attribute value') e.attributes = { note: textOfBytes(LIMITS.limitAttributeValueBytes + 1) };
        if (which === 'attributes') e.attributes = Object.fromEntries(Array.from({ length: LIMITS.limitAttributesPerEvent + rng.between(1, 500) }, (_, i) => [`a${i}`, i]));
        if (which === 'object id') e.objects = [{ id: textOfBytes(LIMITS.limitIdBytes + 1), type: 'order' }];
        if (which === 'huge') e.attributes = { note: 'h'.repeat(rng.pick([100_000, 900_000])) };
        return { value: json(e), reason: /limit PCG_LIMIT_/ };
      },
    ],
    ['junk', () => ({ value: Buffer.alloc(rng.pick([70_000, 1_200_000]), rng.pick([0x61, 0x00, 0x7b])), reason: /not JSON|not UTF-8/ })],
    [
      'bad timestamp',
      () => {
        const e = base();
        e.timestamp = rng.pick(['yesterday', '', '2024-13-45T00:00:00Z', '2024-02-30T25:00:00Z', '+275760-09-13T00:00:00.001Z', 1e21, -62135596800001, 253402300800000, true, null, [], {}, 'NaN']);
        return { value: json(e), reason: /timestamp/ };
      },
    ],
    [
      'NUL or lone surrogate',
      () => {
        const e = base();
        const bad = rng.pick(['a\u0000b', '\u0000', 'x\ud800', '\udfff']);
        const field = rng.pick(['caseId', 'activity', 'resource', 'attribute']);
        if (field === 'attribute') e.attributes = { note: bad };
        else e[field] = bad;
        return { value: json(e), reason: /must not contain (NUL|a lone surrogate)/ };
      },
    ],
    [
      'too deep to write back',
      // A record whose JSON cannot be written again (thousands of levels), with a key that breaks String() too.
      () => ({ value: `{"toString":1,"caseId":"deep","activity":"a","timestamp":0,"attributes":{"a":${nestedJson(rng.pick([6000, 20_000]))}}}`, reason: /./ }),
    ],
  ];
  const out: Poison[] = [];
  while (out.length < count) {
    const [kind, make] = rng.pick(makers);
    const p = make();
    if (!p) continue;
    out.push({ kind, key: rng.chance(0.7) ? `poison-${rng.int(50)}` : null, ...p });
  }
  return out;
}

describe('Kafka fuzzing', () => {
  let broker: KafkaBroker;
  let t: TestApp;
  let w: World;

  beforeAll(async () => {
    // Room for the large junk messages beside others in one produce request.
    broker = await KafkaBroker.start({ properties: { 'message.max.bytes': 8 * 1024 * 1024 } });
    t = testApp({ ...LIMITS, kafkaClusters: openCluster(broker.brokers) }, { runSources: true });
    w = await makeTenant(t.app, 'kafka-fuzz');
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await broker?.stop();
  });

  it(`turns every poison message into exactly one dead letter and counts the valid events exactly (seed ${SEED})`, async () => {
    const rng = new Prng(SEED).fork('kafka');
    const log = simulatedLog(80, SEED % 10_000);
    const valid = messagesOf(log, SEED % 10_000, 0.05);
    const poison = poisons(rng, log, 160);
    // Poison scattered among the valid messages, in a seeded order.
    const all: ProducedMessage[] = [...valid];
    for (const p of poison) all.splice(rng.int(all.length + 1), 0, { key: p.key ?? null, value: p.value });
    const topic = `fuzz-${SEED}`;
    await broker.createTopic(topic, 3);
    await broker.produce(topic, all);
    const ends = await broker.endOffsets(topic);
    const label = `seed ${SEED}: ${valid.length} valid messages (${log.length} events), ${poison.length} poison ${JSON.stringify(countBy(poison.map((p) => p.kind)))}`;
    console.log(`Kafka fuzz ${label}`);

    const created = await call(t.app, 'POST', `/api/${w.tenantId}/project/${w.projectId}/source`, w.admin, { cluster: 'local', topic });
    expect(created.status, created.text).toBe(201);
    const url = `/api/${w.tenantId}/project/${w.projectId}/source/${created.body.id}`;
    let last: unknown;
    const consumed = (s: any, e: number[]) => {
      last = s;
      return s.partitions.length === e.length && s.partitions.every((p: any) => p.storedOffset === e[p.partition]! - 1);
    };
    const status = await eventually(async () => {
      const s = (await call(t.app, 'GET', url, w.reader)).body.status;
      return consumed(s, ends) ? s : undefined;
    }, 60_000, `the topic consumed to its end (${label})`).catch((error: Error) => {
      // A poison the source cannot get past stops its partition: say where it stands.
      throw new Error(`${error.message}; last status ${JSON.stringify(last)}`);
    });
    expect(status.deadLetters, label).toBe(poison.length);
    expect(status.eventsApplied, label).toBe(log.length);

    // Every poison is one dead letter: matched by its bytes, with a reason of its kind and its place.
    const letters: any[] = [];
    for (let after: string | null = '', page = 0; after !== null && page < 50; page++) {
      const r: { items: any[]; next: string | null } = (await call(t.app, 'GET', `${url}/dead-letters?limit=100${after ? `&after=${after}` : ''}`, w.reader)).body;
      letters.push(...r.items);
      after = r.next;
    }
    expect(letters.length, label).toBe(poison.length);
    expect(new Set(letters.map((l) => l.location)).size, `${label}: one letter per message`).toBe(poison.length);
    const unmatched = [...letters];
    const problems: string[] = [];
    for (const p of poison) {
      const bytes = p.value === null ? '' : Buffer.from(p.value).subarray(0, 64 * 1024).toString('base64');
      const i = unmatched.findIndex((l) => l.raw === bytes && (p.value !== null || /tombstone/.test(l.reason)));
      if (i < 0) {
        problems.push(`no dead letter for a ${p.kind} poison ${String(p.value === null ? null : Buffer.from(p.value).subarray(0, 60))}`);
        continue;
      }
      const [letter] = unmatched.splice(i, 1);
      if (!p.reason.test(letter.reason)) problems.push(`a ${p.kind} poison refused for "${letter.reason.slice(0, 200)}", expected ${p.reason}`);
      if (!new RegExp(`^${topic}/[012]@\\d+$`).test(letter.location)) problems.push(`location ${letter.location}`);
      if (!letter.reason) problems.push(`a ${p.kind} poison without a reason`);
    }
    expect(problems, label).toEqual([]);

    // Nothing but the valid events counted: the document is that of the log alone (and says how many were refused).
    const graph = (await call(t.app, 'GET', `/api/${w.tenantId}/project/${w.projectId}/graph`, w.reader)).body;
    const note = `${poison.length} records were refused (not parsed, mapped or valid; kept as dead letters) and are not counted.`;
    expect(graph.assumptions, label).toContain(note);
    expectSameDocument({ ...graph, assumptions: graph.assumptions.filter((a: unknown) => a !== note) }, referenceDocument(log));

    // The source still runs, and takes what comes after the poison.
    const later = simulatedLog(10, (SEED % 10_000) + 1).map((e) => ({ ...e, caseId: `later-${String(e.caseId)}`, eventId: `later-${String(e.eventId ?? `${e.activity}-${String(e.timestamp)}`)}` }));
    await broker.produce(topic, [...later.map((e) => ({ key: e.caseId, value: JSON.stringify(e) })), { key: 'tail', value: null }]);
    const moreEnds = await broker.endOffsets(topic);
    const after = await eventually(async () => {
      const s = (await call(t.app, 'GET', url, w.reader)).body.status;
      return consumed(s, moreEnds) ? s : undefined;
    }, 30_000, `the events after the poison (${label})`);
    expect(after.state, label).toBe('running');
    expect([after.eventsApplied, after.deadLetters], label).toEqual([log.length + later.length, poison.length + 1]);
    const final = (await call(t.app, 'GET', `/api/${w.tenantId}/project/${w.projectId}/graph`, w.reader)).body;
    expect([final.source.events, final.source.log_digest], label).toEqual([referenceDocument([...log, ...later]).source.events, referenceDocument([...log, ...later]).source.log_digest]);
    expect((await t.app.inject({ method: 'GET', url: '/health/ready' })).statusCode).toBe(200);
  }, 120_000);
});

function countBy(items: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const i of items) out[i] = (out[i] ?? 0) + 1;
  return out;
}

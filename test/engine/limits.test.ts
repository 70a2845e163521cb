import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventLimits, ProjectStore } from '../../engine/index.js';
import { MemoryProject } from '../../engine/store/memory-project.js';
import { ProjectRegistry, scopedSnapshot } from '../../engine/projects/index.js';
import { freshStore } from './helpers.js';

/**
 * The event limits are checked in the store, where every ingest path passes
 * (HTTP, dataset uploads, Kafka partitions, the demo feed): an event over a
 * limit is a dead letter whose reason names the limit; the rest of its batch
 * is applied.
 */
describe('event limits in the store', () => {
  const limits = eventLimits({ idBytes: 8, activityBytes: 10, attributeValueBytes: 5, attributesPerEvent: 2 });
  const ok = (caseId: string, activity = 'a', timestamp = 0) => ({ caseId, activity, timestamp });

  it('dead-letters each event over a limit with the limit named, and applies the rest of the batch', () => {
    const store = freshStore({ limits });
    expect(store.limits).toBe(limits);
    const records = [
      ok('c1'),
      { ...ok('c2'), caseId: 'case-123456' },
      { ...ok('c3'), activity: 'Ship the goods' },
      { ...ok('c4'), attributes: { note: 'too long' } },
      { ...ok('c5'), attributes: { a: 1, b: 2, c: 3 } },
      { ...ok('c6'), eventId: 'event-12345' },
      { ...ok('c7'), objects: [{ id: 'order-12345', type: 'order' }] },
      { ...ok('c8'), attributes: { a: 'fine', b: true } },
    ];
    const r = store.apply({ records });
    expect(r).toMatchObject({ accepted: 2, rejected: 6 });
    expect(r.rejections.map((x) => [x.location, x.reason.replace(/ may have.*/, '')])).toEqual([
      ['record 2', 'caseId: limit PCG_LIMIT_ID_BYTES: a case id'],
      ['record 3', 'activity: limit PCG_LIMIT_ACTIVITY_BYTES: an activity name'],
      ['record 4', 'attributes.note: limit PCG_LIMIT_ATTRIBUTE_VALUE_BYTES: an attribute value'],
      ['record 5', 'attributes: limit PCG_LIMIT_ATTRIBUTES_PER_EVENT: an event'],
      ['record 6', 'eventId: limit PCG_LIMIT_ID_BYTES: an event id'],
      ['record 7', 'objects.0.id: limit PCG_LIMIT_ID_BYTES: an object id'],
    ]);
    const letters = store.deadLetters();
    expect(letters).toHaveLength(6);
    expect(letters[1]!.reason).toBe('activity: limit PCG_LIMIT_ACTIVITY_BYTES: an activity name may have at most 10 bytes (this one has 14)');
    expect(JSON.parse(letters[1]!.payload)).toEqual(records[2]);
    const snap = store.snapshot();
    expect(snap.tally.cases).toBe(2);
    expect(snap.rejected).toBe(6);
    expect(snap.objectCounts.size).toBe(0);
  });

  it('holds the defaults when given none: a 10 MB activity name is refused, its payload kept to 64 KiB', () => {
    const store = freshStore();
    const r = store.apply({ records: [ok('c1'), ok('c1', 'x'.repeat(10 * 1024 * 1024), 1), ok('c1', 'b', 2)] });
    expect(r).toMatchObject({ accepted: 2, rejected: 1 });
    expect(r.rejections[0]!.reason).toBe('activity: limit PCG_LIMIT_ACTIVITY_BYTES: an activity name may have at most 1024 bytes (this one has 10485760)');
    expect(store.deadLetters()[0]!.payload.length).toBe(64 * 1024);
    expect([...store.snapshot().tally.activities.keys()].sort()).toEqual(['a', 'b']);
  });

  it('refuses OCEL object records and relations whose ids are over the id limit', () => {
    const store = freshStore({ limits });
    const r = store.apply({
      records: [{ ...ok('c1'), objects: [{ id: 'o1', type: 'order' }] }],
      objects: [
        { id: 'o1', type: 'order' },
        { id: 'o2', type: 'a-very-long-type' },
      ],
      objectRelations: [
        { fromId: 'o1', toId: 'o2', qualifier: 'has' },
        { fromId: 'o1', toId: 'o2', qualifier: 'a-long-qualifier' },
      ],
    });
    expect(r).toMatchObject({ accepted: 1, rejected: 2 });
    expect(r.rejections).toEqual([
      { location: 'object 2', reason: 'limit PCG_LIMIT_ID_BYTES: an object id or type may have at most 8 bytes' },
      { location: 'object relation 2', reason: 'limit PCG_LIMIT_ID_BYTES: each id and qualifier of an object relation may have at most 8 bytes' },
    ]);
    expect(store.objects()).toEqual({ objects: [{ id: 'o1', type: 'order' }], relations: [{ fromId: 'o1', toId: 'o2', qualifier: 'has' }] });
  });

  it('a dead letter over a limit is replayed under the limits too', () => {
    const store = freshStore({ limits });
    store.apply({ records: [{ ...ok('c1'), activity: 'Ship the goods' }] }, undefined, 'kafka-1');
    const replay = store.replayDeadLetters('kafka-1', (letter) => ({ record: JSON.parse(letter.payload) }));
    expect(replay).toMatchObject({ replayed: 0, failing: 1 });
    expect(store.deadLetters({ source: 'kafka-1' })[0]!.reason).toMatch(/^activity: limit PCG_LIMIT_ACTIVITY_BYTES/);
    const fixed = store.replayDeadLetters('kafka-1', (letter) => ({ record: { ...JSON.parse(letter.payload), activity: 'Ship' } }));
    expect(fixed).toMatchObject({ replayed: 1, failing: 0 });
  });
});

describe('object limits in the store (PCG_LIMIT_OBJECTS_PER_EVENT, PCG_LIMIT_OBJECT_TYPES_PER_PROJECT)', () => {
  const limits = eventLimits({ objectsPerEvent: 3, objectTypesPerProject: 3 });
  const at = (caseId: string, timestamp: number, ...types: string[]) => ({
    caseId,
    activity: 'a',
    timestamp,
    objects: types.map((type, i) => ({ id: `${caseId}-${type}-${i}`, type })),
  });

  it('refuses an event over the objects it may carry, by counting them', () => {
    const store = freshStore({ limits });
    const r = store.apply({ records: [at('c1', 0, 'order'), at('c2', 1, 'order', 'item', 'item', 'item')] });
    expect(r).toMatchObject({ accepted: 1, rejected: 1 });
    expect(r.rejections).toEqual([{ location: 'record 2', reason: 'objects: limit PCG_LIMIT_OBJECTS_PER_EVENT: an event may have at most 3 objects (this one has 4)' }]);
  });

  it('refuses an event bringing a type past the project bound, keeping the types before it, across batches and connections', () => {
    const store = freshStore({ limits });
    const first = store.apply({ records: [at('c1', 0, 'order', 'item'), at('c2', 1, 'order', 'box', 'truck'), at('c3', 2, 'order', 'box')] });
    expect(first).toMatchObject({ accepted: 2, rejected: 1 });
    expect(first.rejections).toEqual([
      { location: 'record 2', reason: 'objects: limit PCG_LIMIT_OBJECT_TYPES_PER_PROJECT: a project may have at most 3 object types (it has 2; this one brings 2 more)' },
    ]);
    expect([...store.snapshot().objectCounts.keys()]).toEqual(['box', 'item', 'order']);
    // Known types still come in; a new one does not, in this batch or through another connection.
    const second = store.apply({ records: [at('c4', 3, 'item'), at('c5', 4, 'pallet')] });
    expect(second).toMatchObject({ accepted: 1, rejected: 1 });
    const again = ProjectStore.open(store.db.name, { limits });
    try {
      expect(again.apply({ records: [at('c6', 5, 'crate')], objects: [{ id: 'x', type: 'vessel' }, { id: 'y', type: 'box' }] })).toMatchObject({ accepted: 0, rejected: 2 });
      expect(again.deadLetters().map((d) => d.location)).toEqual(['record 2', 'record 2', 'object 1', 'record 1']);
      // The refused event's dead letter holds it in the wire form, to be replayed once the limit is raised.
      expect(JSON.parse(again.deadLetters()[0]!.payload)).toMatchObject({ caseId: 'c2', objects: [{ type: 'box' }, { type: 'order' }, { type: 'truck' }] });
    } finally {
      again.close();
    }
    expect(store.snapshot().objectCounts.size).toBe(3);
    expect([...store.snapshot().tally.objectTypes.keys()].map((k) => k.split('\u0000')[1]).sort()).toEqual(['box', 'item', 'order']);
  });

  it('holds a memory project (pcg graph FILE) to the same rule, with the same snapshot as the store', () => {
    const batches = [
      { records: [at('c1', 0, 'order', 'item'), at('c2', 1, 'order', 'box', 'truck'), at('c3', 2, 'order', 'box')] },
      { records: [at('c4', 3, 'item'), at('c5', 4, 'pallet')], objects: [{ id: 'v', type: 'vessel' }] },
    ];
    const store = freshStore({ limits });
    const memory = new MemoryProject(limits);
    for (const b of batches) expect(memory.apply(b)).toEqual(store.apply(b));
    const { logDigest: _a, ...fromStore } = store.snapshot();
    const { logDigest: _b, ...fromMemory } = memory.snapshot();
    expect(fromMemory.objectCounts).toEqual(fromStore.objectCounts);
    expect(fromMemory.tally).toEqual(fromStore.tally);
    expect(fromMemory.rejected).toBe(3);
  });
});

describe('event limits in the registry', () => {
  const dirs: string[] = [];
  const registries: ProjectRegistry[] = [];
  afterEach(() => {
    for (const r of registries.splice(0)) r.close();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const fresh = (limits?: ReturnType<typeof eventLimits>) => {
    const dir = mkdtempSync(join(tmpdir(), 'pcg-limits-'));
    dirs.push(dir);
    const r = new ProjectRegistry(dir, limits ? { limits } : {});
    registries.push(r);
    return r;
  };

  it('hands its limits to project and partition stores alike (HTTP, uploads, the demo feed; Kafka partitions)', async () => {
    const limits = eventLimits({ activityBytes: 16 });
    const registry = fresh(limits);
    const long = { caseId: 'c1', activity: 'a'.repeat(17), timestamp: 0 };
    const own = registry.ingest('p1', { records: [long, { caseId: 'c1', activity: 'a', timestamp: 1 }] });
    expect(own).toMatchObject({ accepted: 1, rejected: 1 });
    expect(own.rejections[0]!.reason).toMatch(/^activity: limit PCG_LIMIT_ACTIVITY_BYTES: an activity name may have at most 16 bytes/);
    const part = registry.ingestPart('p1', { records: [long], locations: ['events/0@7'] }, { source: 's1', partition: 0, offset: 7 });
    expect(part.rejections).toEqual([{ location: 'events/0@7', reason: own.rejections[0]!.reason }]);
    expect(registry.part('p1', 's1', 0).limits).toBe(limits);
    expect((await registry.target('p1').apply({ records: [long] })).rejected).toBe(1);
    // Without limits given, the engine's defaults hold.
    expect(fresh().store('p2').limits).toEqual({ idBytes: 512, activityBytes: 1024, attributeValueBytes: 65536, attributesPerEvent: 1000, objectsPerEvent: 1000, objectTypesPerProject: 1000 });
  });

  it('a scoped view keeps events accepted under looser limits than the defaults', () => {
    const registry = fresh(eventLimits({ activityBytes: 4096 }));
    const activity = 'b'.repeat(2000);
    registry.ingest('p1', { records: [{ caseId: 'c1', activity: 'a', timestamp: 0 }, { caseId: 'c1', activity, timestamp: 1 }] });
    const scoped = scopedSnapshot(registry.state('p1'), [{ activities: ['a'] }]);
    expect([...scoped.tally.activities.keys()].sort()).toEqual(['a', activity]);
    expect(scoped.rejected).toBe(0);
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { importLog } from '../../connectors/files/index.js';
import { modelNames, simulate, writeSimulation } from '../../connectors/simulator/index.js';
import { tallyFromRows, tallyRows } from '../../engine/store/codec.js';
import { buildDocument } from '../../engine/document/index.js';
import { checkEvent, ProjectStore, type Batch } from '../../engine/index.js';
import { MemoryProject } from '../../engine/store/memory-project.js';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'pcg-memory-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** The same batches into a stored project and into memory: the two documents, as JSON text. */
function both(batches: Batch[], meta: Record<string, string> = {}): [string, string] {
  const store = ProjectStore.open(join(tempDir(), 'state.sqlite'));
  const memory = new MemoryProject();
  for (const [k, v] of Object.entries(meta)) {
    store.setMeta(k, v);
    memory.setMeta(k, v);
  }
  batches.forEach((b, i) => {
    const position = { source: 's', partition: 0, offset: i + 1 };
    const stored = store.apply(b, position);
    const held = memory.apply(b, position);
    expect(held).toEqual(stored);
  });
  // Re-sent positions change nothing in either.
  expect(memory.apply(batches[0]!, { source: 's', partition: 0, offset: 1 }).applied).toBe(false);
  const fromStore = JSON.stringify(buildDocument(store.snapshot()));
  store.close();
  return [JSON.stringify(buildDocument(memory.snapshot())), fromStore];
}

describe('MemoryProject (pcg graph FILE without a store)', () => {
  it("gives the stored route's document byte for byte: late events, duplicates, replaced bodies, rejections", () => {
    const events = [...simulate({ model: 'order-to-cash', cases: 300, seed: 5, lateShare: 0.1, duplicateShare: 0.1 })];
    const batches: Batch[] = [];
    for (let i = 0; i < events.length; i += 700) batches.push({ records: events.slice(i, i + 700) });
    // A later body under a known id (it wins when its digest is smaller) and records that fail.
    // An event under an explicit id, sent first; later bodies under that id replace it when their digest is smaller.
    const first = { ...(events[0] as Record<string, unknown>), eventId: 'fixed-id', caseId: 'replaced-case' };
    batches.unshift({ records: [first] });
    // A body that wins over the kept one (a smaller digest under the same id), so the replacement path runs, and one that loses.
    const digestOf = (r: unknown) => (checkEvent(r) as { ok: true; event: { digest: string } }).event.digest;
    const bodies = Array.from({ length: 20 }, (_, i) => ({ ...first, resource: `someone ${i}` }));
    const winner = bodies.find((b) => digestOf(b) < digestOf(first))!;
    const loser = bodies.find((b) => digestOf(b) > digestOf(first))!;
    expect(winner && loser).toBeTruthy();
    batches.push({
      records: [winner, loser, { caseId: '', activity: 'x', timestamp: 'never' }],
      rejected: [{ location: 'line 9', reason: 'not JSON', payload: '{' }],
    });
    const [memory, stored] = both(batches, { case_notion: 'order', format: 'ndjson' });
    expect(memory).toBe(stored);
    // The replacement ran: the winner was taken over the kept body, the loser counted a duplicate.
    const probe = new MemoryProject();
    probe.apply({ records: [first] });
    expect(probe.apply({ records: [winner, loser] })).toMatchObject({ accepted: 1, duplicates: 1 });
    expect(probe.snapshot().tally.resources.size).toBe(1);
    expect([...probe.snapshot().tally.resources.keys()][0]).toContain(String(winner.resource));
  });

  it('gives the same objects and relations as the store', () => {
    const batches: Batch[] = [
      {
        records: [
          { caseId: 'o1', activity: 'create', timestamp: '2025-01-01T00:00:00Z', objects: [{ id: 'o1', type: 'order' }, { id: 'i1', type: 'item' }] },
          { caseId: 'o1', activity: 'ship', timestamp: '2025-01-02T00:00:00Z', objects: [{ id: 'o1', type: 'order' }, { id: 'p1', type: 'package' }] },
        ],
        objects: [{ id: 'i2', type: 'item' }],
        objectRelations: [{ fromId: 'o1', toId: 'i1', qualifier: 'contains' }, { fromId: 'p1', toId: 'i1', qualifier: 'holds' }],
      },
      { records: [], objects: [{ id: 'o1', type: 'not-first' }], objectRelations: [{ fromId: 'o1', toId: 'i2', qualifier: 'contains' }] },
    ];
    const [memory, stored] = both(batches);
    expect(memory).toBe(stored);
  });

  it("through importLog on a file: the CLI's in-memory route equals the stored one", async () => {
    const dir = tempDir();
    const file = join(dir, 'log.xes');
    await writeSimulation({ model: 'claims', cases: 150, seed: 3 }, 'xes', file);
    const memory = new MemoryProject();
    await importLog(memory, file);
    const store = ProjectStore.open(join(dir, 'state.sqlite'));
    await importLog(store, file);
    const stored = JSON.stringify(buildDocument(store.snapshot()));
    store.close();
    expect(JSON.stringify(buildDocument(memory.snapshot()))).toBe(stored);
  });
});

describe('the document does not depend on the order its counters were met', () => {
  // A snapshot put together from parts (pcg graph FILE on two threads, a project's stream partitions) meets
  // its counters in another order than one reading does; every Map of the tally is rebuilt here in reverse.
  it.each(modelNames())('%s: the tally rebuilt in reverse gives the same bytes', (model) => {
    const memory = new MemoryProject();
    memory.setMeta('format', 'xes');
    // Placeholders too (the data-quality line lists them): 'UNDEFINED' met first, 'MISSING' first in reverse.
    const records = [...simulate({ model, cases: 400, seed: 21, lateShare: 0.05 })].map((r, k) =>
      k % 7 ? r : { ...r, attributes: { ...(r as { attributes?: object }).attributes, role: k < 1000 ? 'UNDEFINED' : 'MISSING' } },
    );
    memory.apply({ records });
    const snapshot = memory.snapshot();
    const reversed = { ...snapshot, tally: tallyFromRows([...tallyRows(snapshot.tally)].reverse()) };
    expect(reversed.tally.variants.size).toBe(snapshot.tally.variants.size);
    expect(JSON.stringify(buildDocument(reversed)) === JSON.stringify(buildDocument(snapshot))).toBe(true);
  });
});

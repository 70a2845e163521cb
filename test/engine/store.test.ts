import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { edgeKey, END, EngineError, ProjectStore, quantile, recompute, START, tallyToJson, variantKey } from '../../engine/index.js';
import { EventLog } from '../../engine/store/event-log.js';
import { migrations } from '../../engine/store/migrations.js';
import { freshDir, freshStore } from './helpers.js';

const H = 3_600_000;
const t0 = Date.UTC(2025, 0, 6, 9);
const ev = (caseId: string, activity: string, hours: number, extra: Record<string, unknown> = {}) => ({
  caseId,
  activity,
  timestamp: t0 + hours * H,
  ...extra,
});

describe('ProjectStore, by hand', () => {
  it('a batch of refusals alone is a new data version: the document states the refused records, so its version must move', () => {
    const store = freshStore();
    expect(store.apply({ records: [ev('c1', 'a', 0)] }).dataVersion).toBe(1);
    const tally = tallyToJson(store.currentTally());
    const r = store.apply({ records: [{ caseId: 'c2' }, { activity: 'b', timestamp: 1 }] });
    expect(r).toMatchObject({ applied: true, accepted: 0, rejected: 2, dataVersion: 2 });
    expect(store.snapshot()).toMatchObject({ dataVersion: 2, rejected: 2 });
    // Nothing counted changed, and the tally held in memory is still whole.
    expect(tallyToJson(store.currentTally())).toEqual(tally);
    // A duplicate alone changes nothing, so no version.
    expect(store.apply({ records: [ev('c1', 'a', 0)] })).toMatchObject({ duplicates: 1, dataVersion: 2 });
  });

  it('counts a two-case log exactly', () => {
    const store = freshStore();
    const r = store.apply({
      records: [
        ev('c1', 'a', 0, { resource: 'ann' }),
        ev('c1', 'b', 1, { resource: 'bob' }),
        ev('c1', 'b', 3, { resource: 'bob' }),
        ev('c2', 'a', 0, { resource: 'ann' }),
        ev('c2', 'c', 2),
      ],
    });
    expect(r).toMatchObject({ applied: true, accepted: 5, duplicates: 0, rejected: 0, dataVersion: 1 });
    const s = store.snapshot();
    const t = s.tally;
    expect([t.cases, t.events]).toEqual([2, 5]);
    expect(t.activities.get('a')).toMatchObject({ events: 2, cases: 2, casesRepeating: 0 });
    expect(t.activities.get('b')).toMatchObject({ events: 2, cases: 1, casesRepeating: 1 });
    expect(t.edges.get(edgeKey(START, 'a'))).toMatchObject({ events: 2, cases: 2 });
    expect(t.edges.get(edgeKey('a', 'b'))).toMatchObject({ events: 1, cases: 1 });
    expect(t.edges.get(edgeKey('b', 'b'))).toMatchObject({ events: 1, cases: 1 });
    expect(t.edges.get(edgeKey('b', END))).toMatchObject({ events: 1, cases: 1 });
    expect(t.edges.get(edgeKey('c', END))).toMatchObject({ events: 1, cases: 1 });
    // Waits: a→b 1 h, b→b 2 h, a→c 2 h; within the sketch's 1 %.
    expect(quantile(t.edges.get(edgeKey('b', 'b'))!.wait, 0.5) / H).toBeCloseTo(2, 1);
    expect(quantile(t.edges.get(edgeKey('a', 'c'))!.wait, 0.5) / H).toBeCloseTo(2, 1);
    expect([...t.variants.entries()].sort()).toEqual([
      [variantKey(['a', 'b', 'b']), 1],
      [variantKey(['a', 'c']), 1],
    ]);
    expect(t.resources.get(edgeKey('b', 'bob'))).toEqual({ events: 2, cases: 1 });
    expect(s.periodStart).toBe(t0);
    expect(s.periodEnd).toBe(t0 + 3 * H);
  });

  it('re-sequences a case when a late event arrives', () => {
    const store = freshStore();
    store.apply({ records: [ev('c1', 'a', 0), ev('c1', 'c', 2)] });
    store.apply({ records: [ev('c1', 'b', 1)] });
    const t = store.snapshot().tally;
    expect([...t.variants.keys()]).toEqual([variantKey(['a', 'b', 'c'])]);
    expect(t.edges.has(edgeKey('a', 'c'))).toBe(false);
    expect(t.edges.get(edgeKey('a', 'b'))?.cases).toBe(1);
  });

  it('counts duplicates once, with or without an event id', () => {
    const store = freshStore();
    store.apply({ records: [ev('c1', 'a', 0), ev('c1', 'a', 0), ev('c1', 'b', 1, { eventId: 'x' })] });
    const r = store.apply({ records: [ev('c1', 'a', 0), ev('c1', 'b', 1, { eventId: 'x' })] });
    expect(r).toMatchObject({ accepted: 0, duplicates: 2 });
    expect(r.dataVersion).toBe(1);
    expect(store.snapshot().tally.events).toBe(2);
  });

  it('keeps the smaller digest when two bodies share an id, in either order', () => {
    const one = ev('c1', 'a', 0, { eventId: 'e1' });
    const two = ev('c2', 'b', 0, { eventId: 'e1' });
    const a = freshStore();
    a.apply({ records: [one] });
    a.apply({ records: [two] });
    const b = freshStore();
    b.apply({ records: [two] });
    b.apply({ records: [one] });
    expect(a.snapshot().tally).toEqual(b.snapshot().tally);
    expect(a.snapshot().logDigest).toBe(b.snapshot().logDigest);
    expect(a.snapshot().tally.cases).toBe(1);
  });

  it('applies a position once and never moves it back', () => {
    const store = freshStore();
    const pos = { source: 'topic', partition: 0, offset: 10 };
    expect(store.apply({ records: [ev('c1', 'a', 0)] }, pos).applied).toBe(true);
    expect(store.apply({ records: [ev('c1', 'b', 1)] }, pos).applied).toBe(false);
    expect(store.apply({ records: [ev('c1', 'b', 1)] }, { ...pos, offset: 9 }).applied).toBe(false);
    expect(store.snapshot().tally.events).toBe(1);
    expect(store.position('topic', 0)).toBe(10);
    expect(store.apply({ records: [ev('c1', 'b', 1)] }, { ...pos, offset: 11 }).applied).toBe(true);
    expect(store.position('topic', 0)).toBe(11);
  });

  it('refuses a range that overlaps the stored position, and one that follows an offset not applied (a gap), changing nothing', () => {
    const store = freshStore();
    const at = (first: number, offset: number, after?: number) => ({ source: 'topic', partition: 2, first, offset, ...(after === undefined ? {} : { after }) });
    const refusal = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        return error instanceof EngineError ? error.code : 'other';
      }
      return 'applied';
    };
    // The first range of a partition follows nothing stored (-1).
    expect(store.apply({ records: [ev('c1', 'a', 0)] }, at(0, 4, -1)).applied).toBe(true);
    // Sent ahead, the range after 9 arrives while 5..9 never did: refused whole, the position stays.
    expect(refusal(() => store.apply({ records: [ev('c1', 'c', 2)] }, at(10, 14, 9)))).toBe('position_gap');
    // 3..7 overlaps the stored 4: refused whole.
    expect(refusal(() => store.apply({ records: [ev('c1', 'b', 1)] }, at(3, 7, 2)))).toBe('position_overlap');
    expect(store.position('topic', 2)).toBe(4);
    expect(store.snapshot().tally.events).toBe(1);
    // Offsets may skip (compacted topics): a range following the stored offset itself is applied, wherever it starts.
    expect(store.apply({ records: [ev('c1', 'b', 1)] }, at(7, 9, 4)).applied).toBe(true);
    expect(store.apply({ records: [ev('c1', 'c', 2)] }, at(10, 14, 9)).applied).toBe(true);
    expect(store.position('topic', 2)).toBe(14);
    expect(store.snapshot().tally.events).toBe(3);
  });

  it('dead-letters invalid events with their reason and payload, and counts them', () => {
    const store = freshStore();
    const r = store.apply({
      records: [ev('c1', 'a', 0), { caseId: 'c1' }, { caseId: 'c2', activity: ' ', timestamp: 'yesterday' }],
      rejected: [{ location: 'line 7', reason: 'unreadable row', payload: 'x;y' }],
    });
    expect(r.accepted).toBe(1);
    expect(r.rejected).toBe(3);
    const dl = store.deadLetters();
    expect(dl.map((d) => d.location)).toEqual(['line 7', 'record 2', 'record 3']);
    expect(dl[1]!.reason).toMatch(/activity/);
    expect(dl[2]!.reason).toMatch(/timestamp/);
    expect(JSON.parse(dl[1]!.payload)).toEqual({ caseId: 'c1' });
    expect(store.snapshot().rejected).toBe(3);
  });

  it('rolls back a failed batch whole', () => {
    const store = freshStore();
    store.apply({ records: [ev('c1', 'a', 0)] });
    const before = store.snapshot();
    // A record whose getter throws mid-batch: nothing of the batch may stay.
    const bomb = { get caseId(): string { throw new Error('boom'); } };
    expect(() => store.apply({ records: [ev('c2', 'a', 0), bomb] }, { source: 's', partition: 0, offset: 1 })).toThrow('boom');
    expect(store.snapshot().tally).toEqual(before.tally);
    expect(store.position('s', 0)).toBeUndefined();
  });

  it('rebuild() reproduces the incremental counters', () => {
    const store = freshStore();
    store.apply({ records: [ev('c1', 'a', 0), ev('c1', 'b', 1), ev('c2', 'a', 2)] });
    store.apply({ records: [ev('c2', 'b', 1.5), ev('c1', 'c', 4)] });
    const incremental = store.snapshot().tally;
    store.rebuild();
    expect(store.snapshot().tally).toEqual(incremental);
  });

  it('counts role, group and team attribute values per activity', () => {
    const store = freshStore();
    store.apply({
      records: [
        ev('c1', 'a', 0, { attributes: { 'org:group': 'desk', amount: 5 } }),
        ev('c1', 'b', 1, { attributes: { 'org:group': 'back office' } }),
        ev('c1', 'a', 2, { attributes: { 'org:group': 'desk' } }),
        ev('c2', 'a', 0, { attributes: { Team: 'desk', 'org:group': '' } }),
      ],
    });
    const roles = Object.fromEntries([...store.snapshot().tally.roleValues].map(([k, p]) => [k.replaceAll('\u0000', '|'), p]));
    expect(roles).toEqual({
      'a|org:group|desk': { events: 2, cases: 1 },
      'b|org:group|back office': { events: 1, cases: 1 },
      'a|Team|desk': { events: 1, cases: 1 },
    });
  });

  it('recounts counters written by an older counting version when opened', () => {
    const dir = freshDir();
    const file = join(dir, 'state.sqlite');
    const store = ProjectStore.open(file);
    store.apply({ records: [ev('c1', 'a', 0, { attributes: { role: 'clerk' } }), ev('c1', 'b', 1)] });
    const before = store.snapshot();
    // As an older pcg left it: no role counters, an older counting version.
    store.db.exec("DELETE FROM counter WHERE kind LIKE 'role.%'; DELETE FROM counter_delta");
    store.setMeta('counting', '1');
    store.close();
    const reopened = ProjectStore.open(file);
    const after = reopened.snapshot();
    expect(after.dataVersion).toBe(before.dataVersion + 1);
    expect([...after.tally.roleValues.values()]).toEqual([{ events: 1, cases: 1 }]);
    expect(after.tally.variants).toEqual(before.tally.variants);
    reopened.close();
  });

  it('migrates a version 1 file (keyed event table) to the event log, with the same state and de-duplication', () => {
    const dir = freshDir();
    const records = [
      ev('c1', 'a', 0, { eventId: 'x1' }),
      ev('c1', 'b', 2, { eventId: 'x2', resource: 'ann' }),
      ev('c2', 'a', 1),
      ev('c2', 'c', 5, { attributes: { amount: 70 } }),
      ev('c3', 'a', 3, { eventId: 'x3' }),
    ];
    const direct = ProjectStore.open(join(dir, 'direct.sqlite'));
    direct.apply({ records }, { source: 's', partition: 0, offset: 1 });
    direct.close();

    // A version 1 file with the same content, as pcg wrote it before migration 2.
    const oldFile = join(dir, 'v1.sqlite');
    const old = new Database(oldFile);
    old.exec(migrations[0]!);
    old.pragma('user_version = 1');
    old.exec(`ATTACH '${join(dir, 'direct.sqlite')}' AS d`);
    old.exec(`
      INSERT INTO event SELECT key, case_id, time, digest, body FROM d.event;
      INSERT INTO case_state SELECT case_id, min(time), max(time), count(*) FROM d.event GROUP BY case_id;
      INSERT INTO counter SELECT * FROM d.counter;
      INSERT INTO meta SELECT * FROM d.meta;
      INSERT INTO position SELECT * FROM d.position;
    `);
    old.exec('DETACH d');
    old.close();

    const migrated = ProjectStore.open(oldFile);
    const reference = ProjectStore.open(join(dir, 'direct.sqlite'));
    expect(tallyToJson(migrated.snapshot().tally)).toEqual(tallyToJson(reference.snapshot().tally));
    expect([...migrated.traces()]).toEqual([...reference.traces()]);
    // Kept keys still de-duplicate, and a late event re-sequences its migrated case.
    const more = [records[0]!, records[2]!, ev('c1', 'z', -1), ev('c3', 'b', 4)];
    const a = migrated.apply({ records: more });
    const b = reference.apply({ records: more });
    expect(a).toMatchObject({ accepted: 2, duplicates: 2 });
    expect(a).toEqual(b);
    expect(tallyToJson(migrated.snapshot().tally)).toEqual(tallyToJson(reference.snapshot().tally));
    expect(migrated.snapshot().logDigest).toBe(reference.snapshot().logDigest);
    migrated.close();
    reference.close();
  });

  it('gives two connections writing one file in turn the state of one', () => {
    // Each keeps in-memory copies (key index, case folds, pending counter sums) that the other's writes make stale.
    const file = join(freshDir(), 'state.sqlite');
    const a = ProjectStore.open(file);
    const b = ProjectStore.open(file);
    const e1 = ev('c1', 'a', 0, { eventId: '1' });
    const e2 = ev('c1', 'b', 1, { eventId: '2' });
    const e3 = ev('c1', 'c', 2, { eventId: '3' });
    a.apply({ records: [e1] });
    expect(b.apply({ records: [e2, e1] })).toMatchObject({ accepted: 1, duplicates: 1 });
    expect(a.apply({ records: [e3, e2] })).toMatchObject({ accepted: 1, duplicates: 1 });
    expect(b.apply({ records: [e3] })).toMatchObject({ accepted: 0, duplicates: 1 });
    for (const s of [a, b]) expect(tallyToJson(s.snapshot().tally)).toEqual(tallyToJson(recompute([e1, e2, e3])));
    a.close();
    b.close();
    const reopened = ProjectStore.open(file);
    expect(tallyToJson(reopened.snapshot().tally)).toEqual(tallyToJson(recompute([e1, e2, e3])));
    reopened.close();
  });

  it("carries another connection's tally forward by the changes its batches made, only from the version it holds", () => {
    // Two work threads hold one project's store; a build on the one that did not write read every counter again.
    const file = join(freshDir(), 'state.sqlite');
    const a = ProjectStore.open(file);
    const b = ProjectStore.open(file);
    const events = [ev('c1', 'a', 0, { eventId: '1' }), ev('c2', 'a', 1, { eventId: '2' }), ev('c1', 'b', 2, { eventId: '3' })];
    a.apply({ records: events.slice(0, 2) });
    expect(a.takeChange()).toMatchObject({ from: 0, to: 1 });
    b.currentTally(); // b holds the tally at version 1
    // A case continued, a late event that re-sorts a case, refusals alone (a version that counts nothing), duplicates alone (no version).
    const late = ev('c2', 'z', 0.5, { eventId: '4' });
    const batches = [[events[2]!], [late], [{ caseId: 'x' }], [events[0]!]];
    const all = [...events, late];
    for (const batch of batches) {
      const before = a.dataVersion;
      a.apply({ records: batch });
      const change = a.takeChange();
      if (a.dataVersion === before) {
        expect(change).toBeUndefined();
        continue;
      }
      expect(a.takeChange()).toBeUndefined(); // taken once
      expect(b.tallyWarm).toBe(false);
      expect(b.followChange(change!)).toBe(true);
      expect(b.tallyWarm).toBe(true);
      // A change from a version b no longer holds is not applied twice.
      expect(b.followChange(change!)).toBe(false);
    }
    expect(tallyToJson(b.currentTally())).toEqual(tallyToJson(recompute(all)));
    expect(tallyToJson(b.snapshot().tally)).toEqual(tallyToJson(a.snapshot().tally));

    // A change missed (b skipped one): the next does not apply, and b reads the counters again, exactly.
    a.apply({ records: [ev('c3', 'a', 3, { eventId: '5' })] });
    a.takeChange();
    a.apply({ records: [ev('c3', 'b', 4, { eventId: '6' })] });
    expect(b.followChange(a.takeChange()!)).toBe(false);
    expect(b.tallyWarm).toBe(false);
    expect(tallyToJson(b.currentTally())).toEqual(tallyToJson(recompute([...all, ev('c3', 'a', 3), ev('c3', 'b', 4)])));
    a.close();
    b.close();
  });

  it('reads cases with changes still pending without writing, as after a merge', () => {
    const dir = freshDir();
    const file = join(dir, 'state.sqlite');
    // Merges after 4 pending case changes: the first batch (4 cases) is merged; the second (a new case,
    // an appended one and a late event that replaces a case's list) stays pending.
    const store = ProjectStore.open(file, { mergeAfter: 4 });
    store.apply({ records: [ev('b', 'Open', 0), ev('d', 'Open', 1), ev('c', 'Open', 2), ev('e', 'Open', 2)] });
    store.apply({ records: [ev('a', 'Open', 3), ev('b', 'Close', 4), ev('d', 'Open', 0.5, { eventId: 'late' })] });
    const version = store.dataVersion;
    const pendingBefore = new Database(file, { readonly: true }).prepare('SELECT count(*) AS n FROM case_delta').get() as { n: number };
    const read = [...store.traces()].map((t) => `${t[0]!.caseId}:${t.map((e) => e.activity).join('>')}`);
    expect(read).toEqual(['a:Open', 'b:Open>Close', 'c:Open', 'd:Open>Open', 'e:Open']);
    const pendingAfter = new Database(file, { readonly: true }).prepare('SELECT count(*) AS n FROM case_delta').get() as { n: number };
    expect([store.dataVersion, pendingAfter.n]).toEqual([version, pendingBefore.n]);
    expect(pendingBefore.n).toBeGreaterThan(0);
    store.close();
    // Closing merges; read again, the cases are the same.
    const again = ProjectStore.open(file);
    expect([...again.traces()].map((t) => `${t[0]!.caseId}:${t.map((e) => e.activity).join('>')}`)).toEqual(read);
    again.close();
  });

  it('defers a due merge to settle, and merges inside a batch once it is overdue', () => {
    const dir = freshDir();
    const file = join(dir, 'state.sqlite');
    const pending = () => {
      const db = new Database(file, { readonly: true });
      const n = (table: string) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
      const out = [n('case_delta'), n('counter_delta')];
      db.close();
      return out;
    };
    // Each batch is one new case: one case change, and a few counter changes. Due after 4 case changes, overdue after 16.
    const store = ProjectStore.open(file, { mergeAfter: 4, deferMerges: true });
    const log: ReturnType<typeof ev>[] = [];
    const add = (i: number) => {
      const e = ev(`c${i}`, 'Open', i);
      log.push(e);
      store.apply({ records: [e] });
    };
    for (let i = 0; i < 5; i++) add(i);
    // Due since the fourth batch, and left to settle: five batches wait, and the state counts them.
    expect(store.settleDue).toBe(true);
    expect(pending()[0]).toBe(5);
    expect(tallyToJson(store.snapshot().tally)).toEqual(tallyToJson(recompute(log)));
    const version = store.dataVersion;
    store.settle();
    expect([store.settleDue, store.dataVersion, ...pending()]).toEqual([false, version, 0, 0]);
    expect(tallyToJson(store.snapshot().tally)).toEqual(tallyToJson(recompute(log)));
    // Never settled: the batch that makes the log overdue (16 case changes) merges itself.
    const most: number[] = [];
    for (let i = 5; i < 45; i++) {
      add(i);
      most.push(pending()[0]!);
    }
    expect(Math.max(...most)).toBe(15);
    expect(most.filter((n) => n === 0).length).toBe(2);
    expect(tallyToJson(store.snapshot().tally)).toEqual(tallyToJson(recompute(log)));
    store.close();
    // A store that does not defer merges inside the batch that makes the merge due, as before.
    const plain = ProjectStore.open(join(dir, 'plain.sqlite'), { mergeAfter: 4 });
    for (let i = 0; i < 4; i++) plain.apply({ records: [ev(`c${i}`, 'Open', i)] });
    expect(plain.settleDue).toBe(false);
    plain.close();
  });

  it('never serves a tally it holds under a version another connection made (a batch of duplicates, a pass of dead letters)', () => {
    const dir = freshDir();
    const file = join(dir, 'state.sqlite');
    const a = ProjectStore.open(file);
    const b = ProjectStore.open(file);
    const log = [ev('c1', 'Open', 0), ev('c1', 'Close', 1)];
    a.apply({ records: log });
    // A holds the tally of version 1.
    expect(a.snapshot().tally.cases).toBe(1);
    // Another connection (a thread, a dataset taken back elsewhere) makes version 2.
    const more = [ev('c2', 'Open', 2), ev('c3', 'Open', 3)];
    b.apply({ records: more });
    // A applies a batch that makes no version (all duplicates): the version moved on without A, so A's tally is old.
    const dup = a.apply({ records: log });
    expect([dup.accepted, dup.duplicates, dup.dataVersion]).toEqual([0, 2, 2]);
    expect(tallyToJson(a.snapshot().tally)).toEqual(tallyToJson(recompute([...log, ...more])));
    // The same with a dead-letter pass: B makes version 4 (a refusal, then events), A prunes the letter (version 5).
    b.apply({ records: [{ caseId: 'x' }] });
    expect(a.snapshot().dataVersion).toBe(3);
    const last = [ev('c4', 'Open', 4)];
    b.apply({ records: last });
    expect(a.pruneDeadLetters({ receivedBefore: Date.now() + 1000, limit: 10 })).toBe(1);
    expect(a.dataVersion).toBe(5);
    expect(tallyToJson(a.snapshot().tally)).toEqual(tallyToJson(recompute([...log, ...more, ...last])));
    b.close();
    a.close();
  });

  it('counts its totals (cases, events) from the summed counters plus the pending deltas, as the whole tally does', () => {
    const dir = freshDir();
    const file = join(dir, 'state.sqlite');
    const store = ProjectStore.open(file, { mergeAfter: 4, deferMerges: true });
    const log: ReturnType<typeof ev>[] = [];
    for (let i = 0; i < 9; i++) {
      const batch = [ev(`c${i % 5}`, i < 5 ? 'Open' : 'Close', i), ev(`n${i}`, 'Open', i)];
      log.push(...batch);
      store.apply({ records: batch });
      if (i === 4) store.settle();
    }
    // Some counted rows summed, some deltas pending: read on another connection, which holds no tally.
    const other = ProjectStore.open(file);
    const expected = recompute(log);
    expect(other.totals()).toEqual({ cases: expected.cases, events: expected.events });
    expect(store.totals()).toEqual({ cases: expected.cases, events: expected.events });
    expect([expected.cases, expected.events]).toEqual([14, 18]);
    other.close();
    store.close();
  });

  it('closes without merging when told to discard (a file about to be deleted), its state still whole', () => {
    const file = join(freshDir(), 'state.sqlite');
    const store = ProjectStore.open(file);
    const log = [ev('a', 'Open', 0), ev('a', 'Close', 1), ev('b', 'Open', 2)];
    store.apply({ records: log });
    store.close({ discard: true });
    const db = new Database(file, { readonly: true });
    expect((db.prepare('SELECT count(*) AS n FROM counter_delta').get() as { n: number }).n).toBe(1);
    db.close();
    // Nothing is lost: the pending changes are rows of the file, read as before.
    const again = ProjectStore.open(file);
    expect(tallyToJson(again.snapshot().tally)).toEqual(tallyToJson(recompute(log)));
    again.close();
  });

  it('refuses a state file from a newer version, and a foreign file', () => {
    const dir = freshDir();
    const file = join(dir, 'state.sqlite');
    ProjectStore.open(file).close();
    const raw = new Database(file);
    raw.pragma('user_version = 999');
    raw.close();
    expect(() => ProjectStore.open(file)).toThrow(EngineError);
    try {
      ProjectStore.open(file);
    } catch (e) {
      expect((e as EngineError).code).toBe('schema_too_new');
    }
    const other = join(dir, 'other.sqlite');
    const foreign = new Database(other);
    foreign.exec('CREATE TABLE t (x)');
    foreign.close();
    expect(() => ProjectStore.open(other)).toThrow(/no pcg schema version/);
  });

  it('keeps objects and relations of object-centric logs', () => {
    const store = freshStore();
    store.apply({
      records: [ev('o1', 'place', 0, { objects: [{ id: 'o1', type: 'order' }, { id: 'i1', type: 'item', qualifier: 'part' }] })],
      objects: [{ id: 'i2', type: 'item' }],
      objectRelations: [{ fromId: 'o1', toId: 'i1', qualifier: 'contains' }, { fromId: 'o1', toId: 'i2', qualifier: 'contains' }],
    });
    const s = store.snapshot();
    expect([...s.objectCounts]).toEqual([['item', 2], ['order', 1]]);
    expect(s.objectRelations).toEqual([{ fromType: 'order', toType: 'item', qualifier: 'contains', count: 2 }]);
    expect(s.tally.objectTypes.get(edgeKey('place', 'item'))).toEqual({ events: 1, cases: 1 });
  });
});

describe('ProjectStore memory', () => {
  it('keeps a 2 MiB page cache per state file, not the 16 MiB better-sqlite3 builds SQLite with', () => {
    const store = freshStore();
    expect(store.db.pragma('cache_size', { simple: true })).toBe(-2000);
  });

  it('continues a case the cache gave up from its fold kept as text, without reading its rows back', () => {
    const at = (h: number) => `2024-01-01T${String(h).padStart(2, '0')}:00:00Z`;
    const ev = (caseId: string, activity: string, h: number) => ({ caseId, activity, timestamp: at(h), eventId: `${caseId}-${h}`, resource: `r${h % 3}`, attributes: { amount: h } });
    const batches = [
      [ev('a', 'open', 1), ev('a', 'check', 2)],
      [ev('b', 'open', 3)], // the one-case cache gives a's fold up
      [ev('c', 'open', 4)], // and b's
      [ev('a', 'close', 5), ev('b', 'check', 6)],
      [ev('c', 'close', 7), ev('a', 'reopen', 8)],
    ];
    const withText = freshStore({ cacheCases: 1 });
    const withoutText = freshStore({ cacheCases: 1, coldFoldBytes: 0 });
    const reads = vi.spyOn(EventLog.prototype, 'rows');
    const readsOf = (store: ProjectStore) => {
      reads.mockClear();
      batches.forEach((b, i) => store.apply({ records: b }, { source: 's', partition: 0, offset: i }));
      return reads.mock.calls.filter(([ids]) => ids !== '').length;
    };
    try {
      // Every return of a, b or c is an append: with text, each is restored; without, each reads the case back.
      expect(readsOf(withText)).toBe(0);
      expect(readsOf(withoutText)).toBe(4);
    } finally {
      reads.mockRestore();
    }
    const expected = tallyToJson(recompute(batches.flat()));
    expect(tallyToJson(withText.snapshot().tally)).toEqual(expected);
    expect(tallyToJson(withoutText.snapshot().tally)).toEqual(expected);
  });
});

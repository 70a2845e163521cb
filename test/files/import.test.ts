import { describe, expect, it } from 'vitest';
import { tallyToJson } from '../../engine/index.js';
import { importLog, inspectLog, openLog } from '../../connectors/files/index.js';
import { scratch } from './helpers.js';

/** A small XES log: `cases` traces of a few events, some times tied. */
function xesLog(cases: number): string {
  const out = ['<?xml version="1.0"?>', '<log xes.version="1.0">'];
  for (let c = 0; c < cases; c++) {
    out.push(`<trace><string key="concept:name" value="case-${c}"/><int key="size" value="${c}"/>`);
    const acts = c % 3 === 0 ? ['A', 'B', 'C'] : c % 3 === 1 ? ['A', 'C', 'B', 'C'] : ['B', 'A'];
    acts.forEach((a, i) => {
      const t = new Date(Date.UTC(2024, 0, 1 + (c % 20), 8 + (i === 1 ? 0 : i))).toISOString();
      out.push(`<event><string key="concept:name" value="${a}"/><string key="org:resource" value="r${i}"/><date key="time:timestamp" value="${t}"/></event>`);
    });
    out.push('</trace>');
  }
  if (cases > 3) out.push('<trace><event><string key="concept:name" value="A"/></event></trace>');
  out.push('</log>');
  return out.join('\n');
}

describe('importLog', () => {
  it('loads a log once: a second import changes nothing and counts nothing twice', async () => {
    const s = scratch();
    const path = s.file('log.xes', xesLog(50));
    const store = s.store();
    const first = await importLog(store, path, { batchSize: 16 });
    expect(first).toMatchObject({ format: 'xes', case_notion: 'trace', accepted: 151, duplicates: 0, rejected: 1, already_imported: 0, cases: 50, events: 151 });
    expect(first.rejections).toEqual([{ location: 'trace 51 event 1', reason: 'event has no time:timestamp' }]);
    const before = tallyToJson(store.snapshot().tally);
    const version = store.dataVersion;
    const second = await importLog(store, path, { batchSize: 16 });
    expect(second).toMatchObject({ accepted: 0, duplicates: 0, rejected: 0, already_imported: 152, cases: 50, events: 151 });
    expect(store.dataVersion).toBe(version);
    expect(tallyToJson(store.snapshot().tally)).toEqual(before);
    expect(store.deadLetters()).toHaveLength(1);
    expect(store.getMeta('case_notion')).toBe('trace');
    expect(store.getMeta('format')).toBe('xes');
    // Another batch size: every cumulative offset is at or below the stored one, so nothing is applied.
    expect(await importLog(store, path, { batchSize: 7 })).toMatchObject({ accepted: 0, already_imported: 152 });
    // Without positions at all, the file's event ids still dedupe: counted once.
    let duplicates = 0;
    for await (const batch of (await openLog(path)).batches()) duplicates += store.apply(batch).duplicates;
    expect(duplicates).toBe(151);
    expect(tallyToJson(store.snapshot().tally)).toEqual(before);
  });

  it('resumes an import killed mid-way and counts every event once', async () => {
    const s = scratch();
    const path = s.file('log.csv', ['case,activity,timestamp', ...Array.from({ length: 300 }, (_, i) => `c${i % 40},${'ABCD'[i % 4]},2024-01-01T00:${String(i % 60).padStart(2, '0')}:00Z`)].join('\n'));
    const whole = s.store('whole.sqlite');
    await importLog(whole, path, { batchSize: 25 });

    const killed = s.store('killed.sqlite');
    const source = await openLog(path, { batchSize: 25 });
    let offset = 0;
    let applied = 0;
    for await (const batch of source.batches()) {
      offset += batch.records.length + (batch.rejected?.length ?? 0);
      killed.apply(batch, { source: source.sourceId, partition: 0, offset });
      if (++applied === 5) break; // the process dies here
    }
    const resumed = await importLog(killed, path, { batchSize: 25 });
    expect(resumed).toMatchObject({ already_imported: 125, accepted: 175, duplicates: 0, cases: 40, events: 300 });
    expect(tallyToJson(killed.snapshot().tally)).toEqual(tallyToJson(whole.snapshot().tally));
  });

  it('inspect agrees with the store on cases, events, activities, variants and period', async () => {
    const s = scratch();
    const files = [
      s.file('a.xes', xesLog(30)),
      s.file('b.csv', 'case;activity;timestamp\nx;A;2024-01-02 00:00\ny;A;2024-01-01 00:00\nx;B;2024-01-01 00:00\ny;B;2024-01-01 00:00\nx;C;bad\n'),
    ];
    for (const path of files) {
      const summary = await inspectLog(path);
      const store = s.store(`${summary.format}.sqlite`);
      const imported = await importLog(store, path);
      const snap = store.snapshot();
      expect(summary).toMatchObject({
        cases: snap.tally.cases,
        events: snap.tally.events,
        activities: snap.tally.activities.size,
        variants: snap.tally.variants.size,
        period_start: new Date(snap.periodStart!).toISOString(),
        period_end: new Date(snap.periodEnd!).toISOString(),
        rejected: imported.rejected,
      });
    }
  });
});

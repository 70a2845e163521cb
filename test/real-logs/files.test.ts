import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { END, ProjectStore, recompute, splitKey, START, type Tally } from '../../engine/index.js';
import { importLog, inspectLog, openLog } from '../../connectors/files/index.js';
import { realLogs, runPm4py } from '../tools/pm4py.js';
import { manifestLogs } from './manifest.js';

/**
 * Every non-OCEL log of both manifests (manifest.ts, each read with its import
 * options) loads, with the case and event counts of its manifest row (those
 * were counted from the files: they match exactly, no quirk needed), and on
 * the reference logs the directly-follows counts (start and end included) and
 * the number of variants equal pm4py's (read_xes / pandas + format_dataframe).
 */
/** Logs compared with pm4py, and how pm4py reads each. */
const reference = [
  { id: 'running-example.xes', file: 'pm4py/running-example.xes', kind: 'xes', viaStore: true },
  { id: 'running-example.csv', file: 'pm4py/running-example.csv', kind: 'csv', viaStore: true },
  { id: 'receipt.csv', file: 'pm4py/receipt.csv', kind: 'csv', viaStore: true },
  { id: '08_receipt.xes.gz', file: 'pm4py/08_receipt.xes.gz', kind: 'xes', viaStore: false },
  { id: 'bpic2012.xes.gz', file: 'pm4py/bpic2012.xes.gz', kind: 'xes', viaStore: false },
];

const script = `
import sys, json
import pm4py, pandas as pd
out = {}
for spec in json.loads(sys.argv[1]):
    if spec['kind'] == 'xes':
        log = pm4py.read_xes(spec['path'])
    else:
        df = pd.read_csv(spec['path'])
        log = pm4py.format_dataframe(df, case_id='case:concept:name', activity_key='concept:name', timestamp_key='time:timestamp')
    dfg, sa, ea = pm4py.discover_dfg(log)
    out[spec['id']] = {
        'dfg': sorted([[a, b, int(n)] for (a, b), n in dfg.items()]),
        'start': sorted([[k, int(v)] for k, v in sa.items()]),
        'end': sorted([[k, int(v)] for k, v in ea.items()]),
        'variants': len(pm4py.get_variants(log)),
    }
print(json.dumps(out))
`;

interface Dfg {
  dfg: [string, string, number][];
  start: [string, number][];
  end: [string, number][];
  variants: number;
}

function dfgOf(t: Tally): Dfg {
  const dfg: [string, string, number][] = [];
  const start: [string, number][] = [];
  const end: [string, number][] = [];
  for (const [key, e] of t.edges) {
    const [from, to] = splitKey(key);
    if (from === START) start.push([to, e.events]);
    else if (to === END) end.push([from, e.events]);
    else dfg.push([from, to, e.events]);
  }
  const order = (a: (string | number)[], b: (string | number)[]) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1);
  return { dfg: dfg.sort(order), start: start.sort(order), end: end.sort(order), variants: t.variants.size };
}

/** pm4py reads every lifecycle transition as an event: so do the readers here (pcg's default pairs start and complete). */
const ALL = { lifecycle: 'all' } as const;

describe.skipIf(!realLogs)('real logs: XES and CSV readers', () => {
  const folder = realLogs!;
  let pm4py: Record<string, Dfg> = {};
  let dir = '';

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'pcg-real-files-'));
    // One python run for all reference logs: importing pm4py costs seconds.
    pm4py = runPm4py<Record<string, Dfg>>(script, [JSON.stringify(reference.map((r) => ({ id: r.id, kind: r.kind, path: join(folder, r.file) })))]);
  }, 600_000);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  for (const row of manifestLogs().filter((r) => ['xes', 'xes.gz', 'csv', 'csv.gz'].includes(r.format))) {
    it(`${row.file} loads with the manifest's counts`, async () => {
      // Every transition, as the manifest (and pm4py) count events; the default pairing is tested in lifecycle tests.
      const summary = await inspectLog(join(folder, row.file), { ...row.options, lifecycle: 'all' });
      expect(summary.format).toBe(row.format.replace('.gz', ''));
      expect(summary.rejected).toBe(0);
      expect([summary.cases, summary.events]).toEqual([row.cases, row.events]);
    });
  }

  for (const ref of reference) {
    it(`${ref.id}: directly-follows counts and variants equal pm4py's`, async () => {
      const path = join(folder, ref.file);
      let tally: Tally;
      if (ref.viaStore) {
        // The import path itself, into a fresh project.
        const store = ProjectStore.open(join(dir, `${ref.id}.sqlite`));
        await importLog(store, path, ALL);
        tally = store.snapshot().tally;
        store.close();
      } else {
        // Large logs: the engine's from-scratch oracle over the same batches (the store is tested equal to it).
        const records: unknown[] = [];
        for await (const b of (await openLog(path, ALL)).batches()) records.push(...b.records);
        tally = recompute(records);
      }
      const ours = dfgOf(tally);
      const theirs = pm4py[ref.id]!;
      expect(ours.dfg).toEqual(theirs.dfg);
      expect(ours.start).toEqual(theirs.start);
      expect(ours.end).toEqual(theirs.end);
      expect(ours.variants).toBe(theirs.variants);
      expect((await inspectLog(path, ALL)).variants).toBe(theirs.variants);
    }, 300_000);
  }
});

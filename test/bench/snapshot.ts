/**
 * Graph document benchmark (issue 4): time to build the whole document from a
 * loaded project's state, for BPIC 2012 and for simulated projects of one
 * model at several sizes (flat in events: the builder reads counters and
 * variants only), and, in the same run, pm4py's IMf + token-based fitness on
 * BPIC 2012 as the outside reference.
 *
 *   PCG_REAL_LOGS=... node --import tsx test/bench/snapshot.ts [--runs 7] [--sizes 100000,1000000] [--big] [--keep DIR] [--no-pm4py]
 *
 * --big adds the 5M-event project (its load takes minutes: simulated events go
 * in 100k-event batches); --keep DIR keeps loaded projects in DIR and reuses
 * them on the next run. CPU ms include V8's parallel GC threads.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { importLog } from '../../connectors/files/index.js';
import { simulate } from '../../connectors/simulator/index.js';
import { buildDocument } from '../../engine/document/index.js';
import { ProjectStore, type WireEvent } from '../../engine/index.js';
import { discoverModel, variantLog } from '../../engine/mining/index.js';
import { readProcess } from '../../engine/reading/index.js';
import { realLogs, runPm4py } from '../tools/pm4py.js';
import { median } from './child.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '7' },
    sizes: { type: 'string', default: '100000,1000000' },
    big: { type: 'boolean', default: false },
    keep: { type: 'string' },
    'no-pm4py': { type: 'boolean', default: false },
  },
});
const runs = Number(values.runs);
const sizes = values.sizes!.split(',').map(Number);
if (values.big) sizes.push(5_000_000);
const dir = values.keep ?? mkdtempSync(join(tmpdir(), 'pcg-bench-doc-'));
mkdirSync(dir, { recursive: true });

interface Row {
  project: string;
  events: number;
  cases: number;
  variants: number;
  activities: number;
  loadSeconds: number;
  snapshotMs: number;
  buildMsMedian: number;
  buildCpuMsMedian: number;
  /** The mined model alone (variant keys parsed, IMf trials + replay), and the interpreter's reading alone (on the parsed variants): the two big parts of a build. */
  modelMsMedian: number;
  modelCpuMsMedian: number;
  readingMsMedian: number;
  readingCpuMsMedian: number;
}

function timeIt(f: () => void): { ms: number; cpuMs: number } {
  const c = process.cpuUsage();
  const t = performance.now();
  f();
  const d = process.cpuUsage(c);
  return { ms: performance.now() - t, cpuMs: (d.user + d.system) / 1000 };
}

function measure(project: string, store: ProjectStore, loadSeconds: number): Row {
  let snapshot = store.snapshot();
  const snap = timeIt(() => (snapshot = store.snapshot()));
  const builds: { ms: number; cpuMs: number }[] = [];
  const models: { ms: number; cpuMs: number }[] = [];
  const readings: { ms: number; cpuMs: number }[] = [];
  const doc = buildDocument(snapshot); // warm-up
  const input = {
    snapshot,
    nodes: doc.nodes,
    edges: doc.edges,
    tree: discoverModel(snapshot.tally.variants).tree,
    casesItAccepts: doc.model.cases_it_accepts,
    hoursBetween: (from: number, to: number) => (to - from) / 3_600_000,
    // As in the build: the variant keys parsed once (by the model step), shared with the reading.
    parsed: (({ log, labels, keys }) => ({ traces: log.traces, counts: log.counts, labels, keys }))(variantLog(snapshot.tally.variants)),
  };
  for (let i = 0; i < runs; i++) {
    builds.push(timeIt(() => buildDocument(snapshot)));
    models.push(timeIt(() => discoverModel(snapshot.tally.variants)));
    readings.push(timeIt(() => readProcess(input)));
  }
  const row: Row = {
    project,
    events: snapshot.tally.events,
    cases: snapshot.tally.cases,
    variants: snapshot.tally.variants.size,
    activities: snapshot.tally.activities.size,
    loadSeconds: Math.round(loadSeconds * 10) / 10,
    snapshotMs: Math.round(snap.ms),
    buildMsMedian: Math.round(median(builds.map((b) => b.ms))),
    buildCpuMsMedian: Math.round(median(builds.map((b) => b.cpuMs))),
    modelMsMedian: Math.round(median(models.map((m) => m.ms))),
    modelCpuMsMedian: Math.round(median(models.map((m) => m.cpuMs))),
    readingMsMedian: Math.round(median(readings.map((r) => r.ms))),
    readingCpuMsMedian: Math.round(median(readings.map((r) => r.cpuMs))),
  };
  console.error(JSON.stringify(row));
  return row;
}

async function bpic(): Promise<Row | undefined> {
  if (!realLogs) return undefined;
  const file = join(dir, 'bpic2012.sqlite');
  const fresh = !existsSync(file);
  const store = ProjectStore.open(file);
  try {
    const t = performance.now();
    if (fresh) await importLog(store, join(realLogs, 'pm4py/bpic2012.xes.gz'));
    return measure('BPIC 2012', store, fresh ? (performance.now() - t) / 1000 : 0);
  } finally {
    store.close();
  }
}

function simulated(events: number): Row {
  const file = join(dir, `sim-${events}.sqlite`);
  const fresh = !existsSync(file);
  const store = ProjectStore.open(file);
  try {
    const t = performance.now();
    if (fresh) {
      let batch: WireEvent[] = [];
      let n = 0;
      for (const e of simulate({ model: 'order-to-cash', cases: Math.ceil(events / 5), seed: 42 })) {
        batch.push(e);
        if (++n === events) break;
        // Large batches: one transaction per 100k events keeps the load of the 5M project to minutes.
        if (batch.length === 100_000) {
          store.apply({ records: batch });
          batch = [];
        }
      }
      if (batch.length) store.apply({ records: batch });
    }
    return measure(`order-to-cash ${events / 1e6}M`, store, fresh ? (performance.now() - t) / 1000 : 0);
  } finally {
    store.close();
  }
}

const PM4PY_BENCH = `
import sys, json, time, pm4py
log = pm4py.read_xes(sys.argv[1])
runs = int(sys.argv[2])
imf, fit = [], []
for _ in range(runs):
    t = time.process_time(); w = time.perf_counter()
    tree = pm4py.discover_process_tree_inductive(log, noise_threshold=0.2)
    imf.append(time.perf_counter() - w)
    net, im, fm = pm4py.convert_to_petri_net(tree)
    w = time.perf_counter()
    f = pm4py.fitness_token_based_replay(log, net, im, fm)
    fit.append(time.perf_counter() - w)
med = lambda xs: sorted(xs)[len(xs) // 2]
print(json.dumps({'imf_seconds': med(imf), 'fitness_seconds': med(fit), 'perc_fit_traces': f['perc_fit_traces']}))
`;

try {
  const rows: Row[] = [];
  const b = await bpic();
  if (b) rows.push(b);
  for (const n of sizes) rows.push(simulated(n));
  let pm4py: { imf_seconds: number; fitness_seconds: number; perc_fit_traces: number } | undefined;
  if (realLogs && !values['no-pm4py']) pm4py = runPm4py(PM4PY_BENCH, [join(realLogs, 'pm4py/bpic2012.xes.gz'), '3'], 3_600_000);
  const sims = rows.filter((r) => r.project.startsWith('order-to-cash'));
  const summary = {
    loadAverage: (await import('node:os')).loadavg().map((x) => Math.round(x * 10) / 10),
    rows,
    pm4py_bpic2012: pm4py,
    ratio_pm4py_to_ours: b && pm4py ? Math.round(((pm4py.imf_seconds + pm4py.fitness_seconds) * 1000) / b.buildMsMedian) : undefined,
    ratio_largest_to_smallest_simulated: sims.length > 1 ? Math.round((sims[sims.length - 1]!.buildMsMedian / sims[0]!.buildMsMedian) * 100) / 100 : undefined,
  };
  console.log(JSON.stringify(summary));
} finally {
  if (!values.keep) rmSync(dir, { recursive: true, force: true });
}

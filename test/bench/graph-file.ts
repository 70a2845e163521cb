/**
 * One-shot document from a file (issue 16): `pcg graph FILE` (in memory,
 * start-up included) against the stored route (`pcg import` into a fresh
 * project, then `pcg graph --project-dir`) and against pm4py's read_xes +
 * discover_dfg + variants + inductive miner (infrequent) + token-based
 * fitness, all on the same file in the same run. Best of 3 for pcg, of 2 for
 * pm4py (its import excluded).
 *
 *   PCG_REAL_LOGS=../shared/logs node --import tsx test/bench/graph-file.ts [--log pm4py/bpic2012.xes.gz]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { realLogs, runPm4py } from '../tools/pm4py.js';
import { timedPcg, type TimedRun } from './child.js';

const { values } = parseArgs({ options: { log: { type: 'string', default: 'pm4py/bpic2012.xes.gz' }, runs: { type: 'string', default: '3' } } });
if (!realLogs) throw new Error('set PCG_REAL_LOGS to the folder of real logs');
const file = join(realLogs, values.log!);
const runs = Number(values.runs);

type Run = TimedRun;
const timed = timedPcg;

const best = (xs: Run[]): Run => xs.reduce((a, b) => (b.wallS < a.wallS ? b : a));
const dir = mkdtempSync(join(tmpdir(), 'pcg-graph-bench-'));
try {
  const memory: Run[] = [];
  const stored: Run[] = [];
  for (let i = 0; i < runs; i++) {
    memory.push(timed(['graph', file, '--out', join(dir, 'memory.json')]));
    const project = join(dir, `p${i}`);
    const imported = timed(['import', file, '--project-dir', project]);
    const graphed = timed(['graph', '--project-dir', project, '--out', join(dir, 'stored.json')]);
    stored.push({ wallS: imported.wallS + graphed.wallS, cpuS: imported.cpuS + graphed.cpuS, rssMb: Math.max(imported.rssMb, graphed.rssMb) });
  }
  const identical = readFileSync(join(dir, 'memory.json'), 'utf8') === readFileSync(join(dir, 'stored.json'), 'utf8');
  const pm4py = runPm4py<{ wall: number; cpu: number }>(
    `
import sys, time, json
import pm4py
from pm4py.algo.discovery.inductive import algorithm as inductive
best = None
for _ in range(2):
    w, c = time.perf_counter(), time.process_time()
    log = pm4py.read_xes(sys.argv[1])
    dfg, starts, ends = pm4py.discover_dfg(log)
    variants = pm4py.get_variants(log)
    tree = pm4py.discover_process_tree_inductive(log, noise_threshold=0.2)
    net, im, fm = pm4py.convert_to_petri_net(tree)
    fitness = pm4py.fitness_token_based_replay(log, net, im, fm)
    run = {'wall': time.perf_counter() - w, 'cpu': time.process_time() - c}
    if best is None or run['wall'] < best['wall']: best = run
print(json.dumps(best))
`,
    [file],
    1_800_000,
  );
  const m = best(memory);
  const s = best(stored);
  console.log(
    JSON.stringify(
      {
        log: values.log,
        identicalDocument: identical,
        pcgGraphFile: m,
        storedRoute: s,
        pm4py: { wallS: +pm4py.wall.toFixed(2), cpuS: +pm4py.cpu.toFixed(2) },
        ratioToPm4pyWall: +(pm4py.wall / m.wallS).toFixed(1),
        ratioToPm4pyCpu: +(pm4py.cpu / m.cpuS).toFixed(1),
        speedupOverStoredRoute: +(s.wallS / m.wallS).toFixed(2),
      },
      null,
      2,
    ),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}

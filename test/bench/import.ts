/**
 * Benchmark of the file readers (not a test): `pcg inspect` against pm4py's
 * read_xes on BPIC 2012 and the BPIC 2019 sample, and memory flatness on a
 * simulated log 10× larger than another.
 *
 *   PCG_REAL_LOGS=../shared/logs node --import tsx test/bench/import.ts
 *
 * Each pcg run is a child process, so its peak RSS is its own: the wall time
 * of the whole `pcg inspect` command (start-up included), its CPU time and,
 * inside the child, the time of inspectLog alone; the best of three runs.
 * pm4py reads each file twice in one python process (best run; its import
 * excluded). CPU times are the fairer comparison on a shared machine.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { realLogs, runPm4py } from '../tools/pm4py.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'api', 'bin.mjs');

interface PcgRun {
  wallMs: number;
  /** User + system CPU of the whole command: less disturbed than wall time on a shared machine. */
  cpuMs: number;
  inspectMs: number;
  maxRssMb: number;
  events: number;
}

const RUNS = 3;

/** `pcg inspect FILE` in a child, under /usr/bin/time for its CPU time and peak RSS; the best of RUNS. */
function pcgInspect(file: string): PcgRun {
  const runs: PcgRun[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    const r = spawnSync('/usr/bin/time', ['-f', '%U %S %M', process.execPath, bin, 'inspect', file], { encoding: 'utf8', maxBuffer: 1 << 26 });
    const wallMs = performance.now() - start;
    if (r.status !== 0) throw new Error(`pcg inspect ${file} failed: ${r.stderr}`);
    const [user, sys, rss] = r.stderr.trim().split('\n').pop()!.split(' ').map(Number);
    const summary = JSON.parse(r.stdout) as { events: number };
    // The time of inspectLog alone, in a fresh process too.
    const code = `const { inspectLog } = await import(${JSON.stringify(join(root, 'connectors/files/index.ts'))});
const t = performance.now(); await inspectLog(${JSON.stringify(file)}); console.log(performance.now() - t);`;
    const inner = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { encoding: 'utf8', cwd: root });
    runs.push({ wallMs, cpuMs: (user! + sys!) * 1000, inspectMs: Number(inner.trim().split('\n').pop()), maxRssMb: rss! / 1024, events: summary.events });
  }
  const best = (k: keyof PcgRun) => Math.min(...runs.map((r) => r[k]));
  return { wallMs: best('wallMs'), cpuMs: best('cpuMs'), inspectMs: best('inspectMs'), maxRssMb: Math.max(...runs.map((r) => r.maxRssMb)), events: runs[0]!.events };
}

const pm4pyScript = `
import sys, json, time, resource
import pm4py
out = {}
for path in sys.argv[1:]:
    best = None
    for _ in range(2):
        t, c = time.time(), resource.getrusage(resource.RUSAGE_SELF)
        log = pm4py.read_xes(path)
        c2 = resource.getrusage(resource.RUSAGE_SELF)
        run = {'seconds': time.time() - t, 'cpu': (c2.ru_utime - c.ru_utime) + (c2.ru_stime - c.ru_stime), 'events': int(len(log))}
        best = run if best is None else {'seconds': min(best['seconds'], run['seconds']), 'cpu': min(best['cpu'], run['cpu']), 'events': run['events']}
        del log
    out[path] = best
out['maxRssMb'] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
`;

/** A simulated order-to-cash log as XES (the simulator's writer; a plain generator when it is absent). */
async function simulatedXes(path: string, cases: number): Promise<void> {
  try {
    const sim = (await import('../../connectors/simulator/index.js')) as { writeSimulation?: (o: object, f: string, out: string) => Promise<unknown> };
    if (sim.writeSimulation) {
      await sim.writeSimulation({ model: 'order-to-cash', cases, seed: 7 }, 'xes', path);
      return;
    }
  } catch {
    // fall through to the plain generator
  }
  const out = createWriteStream(path);
  out.write('<?xml version="1.0" encoding="UTF-8"?>\n<log xes.version="1.0">\n');
  const acts = ['Create order', 'Check credit', 'Approve', 'Ship', 'Invoice', 'Receive payment', 'Close'];
  for (let c = 0; c < cases; c++) {
    let t = Date.UTC(2025, 0, 1) + c * 600_000;
    const lines = [`<trace><string key="concept:name" value="order-${c}"/>`];
    for (const a of acts.slice(0, 4 + (c % 4))) {
      t += 3_600_000 * (1 + (c % 5));
      lines.push(`<event><string key="concept:name" value="${a}"/><string key="org:resource" value="r${c % 13}"/><date key="time:timestamp" value="${new Date(t).toISOString()}"/></event>`);
    }
    lines.push('</trace>\n');
    if (!out.write(lines.join(''))) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  out.end('</log>\n');
  await new Promise<void>((r) => out.once('finish', () => r()));
}

async function main(): Promise<void> {
  if (!realLogs) {
    console.error('PCG_REAL_LOGS is not set: nothing to benchmark.');
    process.exitCode = 2;
    return;
  }
  const files = ['pm4py/bpic2012.xes.gz', 'pm4py/16_bpic2019_1t_per_variant.xes.gz'].map((f) => join(realLogs!, f));
  const rows: string[] = [];
  const pm4py = runPm4py<Record<string, { seconds: number; cpu: number; events: number }> & { maxRssMb: number }>(pm4pyScript, files, 1_800_000);
  for (const file of files) {
    const ours = pcgInspect(file);
    const theirs = pm4py[file]!;
    rows.push(
      `${file.split('/').pop()}: pcg inspect ${(ours.wallMs / 1000).toFixed(2)} s wall, ${(ours.cpuMs / 1000).toFixed(2)} s CPU (inspectLog alone ${(ours.inspectMs / 1000).toFixed(2)} s), peak RSS ${ours.maxRssMb.toFixed(0)} MB | ` +
        `pm4py read_xes ${theirs.seconds.toFixed(2)} s wall, ${theirs.cpu.toFixed(2)} s CPU | ` +
        `ratio ${(theirs.seconds / (ours.wallMs / 1000)).toFixed(1)}× wall, ${(theirs.cpu / (ours.cpuMs / 1000)).toFixed(1)}× CPU (whole command), ${(theirs.seconds / (ours.inspectMs / 1000)).toFixed(1)}× (reader) | events ${ours.events} vs ${theirs.events}`,
    );
  }
  rows.push(`pm4py peak RSS over both files: ${pm4py.maxRssMb.toFixed(0)} MB`);

  const dir = mkdtempSync(join(tmpdir(), 'pcg-bench-import-'));
  try {
    const small = join(dir, 'sim-1x.xes');
    const large = join(dir, 'sim-10x.xes');
    await simulatedXes(small, 5_000);
    await simulatedXes(large, 50_000);
    const a = pcgInspect(small);
    const b = pcgInspect(large);
    const mb = (p: string) => (statSync(p).size / 1e6).toFixed(0);
    rows.push(
      `memory flatness: simulated order-to-cash 1× (${a.events} events, ${mb(small)} MB) peak RSS ${a.maxRssMb.toFixed(0)} MB in ${(a.inspectMs / 1000).toFixed(2)} s; ` +
        `10× (${b.events} events, ${mb(large)} MB) peak RSS ${b.maxRssMb.toFixed(0)} MB in ${(b.inspectMs / 1000).toFixed(2)} s; RSS ratio ${(b.maxRssMb / a.maxRssMb).toFixed(2)}×`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(rows.join('\n'));
}

await main();

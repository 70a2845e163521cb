/**
 * Ingest benchmark (issues 2 and 16): events/s and peak RSS for N simulated
 * events into one project, against bare SQLite bulk inserts of the same rows
 * measured in the same run (one transaction per batch, `bare`, and one
 * transaction for everything, `bare-one`). Measured: `engine`, the events
 * through ProjectStore.apply in batches; `import`, `pcg import` of the same
 * events written as an NDJSON file (a child process, start-up and reading the
 * file included); and, to show where the gap lies, `stored`, the engine's
 * floor: the same events validated and written to the engine's event log
 * (appended, de-duplicated by its key index), uncounted.
 *
 *   node --import tsx test/bench/ingest.ts [--events 1000000] [--batch 10000] [--runs 3] [--modes generate,bare,...] [--heap ingest|default]
 *       [--open-share 0.05]
 *
 * The stream is one process, order-to-cash at a steady arrival rate: a longer
 * stream is that process running for longer, not a busier one. The simulator
 * leaves `openShare` of a log's cases open at the end of its window (Little's
 * law: cases in flight = arrival rate × mean case duration), so past 1M events
 * the share shrinks as the stream grows (0.05 × 1M / events), which keeps
 * about the 1M stream's 10k cases in flight: a project that grows, which is
 * what issue 16's 10M goal asks about. `--open-share` sets the share instead;
 * 0.05 at 10M is a process ten times as busy, 100k cases in flight (the
 * default here before 2026-11-27; BENCHMARKS.md gives both).
 */
import Database from 'better-sqlite3';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_EVENT_LIMITS, INGEST_HEAP, ProjectStore, type WireEvent } from '../../engine/index.js';
import { prepareBatch } from '../../engine/store/prepare.js';
import { openDatabase } from '../../engine/store/database.js';
import { EventLog } from '../../engine/store/event-log.js';
import { EMPTY_DIGEST } from '../../engine/store/digest.js';
import { DEFAULT_OPEN_SHARE, simulate } from '../../connectors/simulator/index.js';
import { median, peakRssMiB, runChild, timedPcg } from './child.js';

const { values } = parseArgs({
  options: {
    mode: { type: 'string' },
    events: { type: 'string', default: '1000000' },
    batch: { type: 'string', default: '10000' },
    runs: { type: 'string', default: '3' },
    modes: { type: 'string', default: 'generate,bare,bare-one,stored,engine,import' },
    // `ingest`: the engine modes run with the young generation the product's ingest threads get (engine/heap.ts); `default`: V8's.
    heap: { type: 'string', default: 'ingest' },
    // The simulator's share of cases open when its window closes (its default 0.05): cases in flight at once are
    // about this share of the stream's cases (events / 5), so 0.05 puts 100k in flight at 10M events, 0.01 20k.
    'open-share': { type: 'string' },
  },
});
const events = Number(values.events);
const batchSize = Number(values.batch);

/** The simulator's cases for the stream: the stream is cut at `events`, before its later cases' events come. */
const streamCases = Math.ceil(events / 5);
/** The 1M stream's process for any length (see the top): its share up to 1M events, a smaller one past it. */
const openShare = values['open-share'] === undefined ? Math.min(DEFAULT_OPEN_SHARE, (DEFAULT_OPEN_SHARE * 1e6) / events) : Number(values['open-share']);

/** The same simulated stream for every mode: order-to-cash, 10 events a case on average. */
function* batches(): Generator<WireEvent[]> {
  let batch: WireEvent[] = [];
  let n = 0;
  for (const e of simulate({ model: 'order-to-cash', cases: streamCases, seed: 42, openShare })) {
    batch.push(e);
    if (++n === events) break;
    if (batch.length === batchSize) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length) yield batch;
}

interface Measure {
  mode: string;
  events: number;
  seconds: number;
  /** User + system CPU seconds: steadier than wall time on a shared machine. */
  cpuSeconds: number;
  rssMiB: number;
  cases?: number;
  /** Engine mode: seconds taken by each successive million events, generating them included, and by the store's apply alone. */
  perMillion?: number[];
  applyPerMillion?: number[];
}

async function measure(mode: string): Promise<Measure> {
  const dir = mkdtempSync(join(tmpdir(), 'pcg-bench-'));
  try {
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    let count = 0;
    let cases: number | undefined;
    const perMillion: number[] = [];
    const applyPerMillion: number[] = [];
    if (mode === 'import') {
      // The file is written before the clock starts; the import is its own process, measured by /usr/bin/time.
      const file = join(dir, 'events.ndjson');
      const out = createWriteStream(file);
      for (const b of batches()) {
        if (!out.write(`${b.map((e) => JSON.stringify(e)).join('\n')}\n`)) await once(out, 'drain');
      }
      out.end();
      await once(out, 'finish');
      const run = timedPcg(['import', file, '--project-dir', join(dir, 'project')]);
      return { mode, events, seconds: run.wallS, cpuSeconds: run.cpuS, rssMiB: run.rssMb };
    }
    if (mode === 'generate') {
      for (const b of batches()) count += b.length;
    } else if (mode === 'bare' || mode === 'bare-one') {
      // The baselines: the same rows, one prepared insert of five columns into a table without keys, WAL; one
      // transaction per batch (`bare`), or one for all rows (`bare-one`: the fastest SQLite insert there is, issue 16's).
      const db = new Database(join(dir, 'bare.sqlite'));
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.exec('CREATE TABLE event (event_id TEXT, case_id TEXT, activity TEXT, time TEXT, payload TEXT) STRICT');
      const insert = db.prepare('INSERT INTO event VALUES (?, ?, ?, ?, ?)');
      const put = (b: WireEvent[]) => {
        for (const e of b) insert.run(e.eventId ?? null, e.caseId, e.activity, String(e.timestamp), JSON.stringify(e));
        count += b.length;
      };
      const write = db.transaction(put);
      if (mode === 'bare') for (const b of batches()) write(b);
      else
        db.transaction(() => {
          for (const b of batches()) put(b);
        })();
      db.close();
    } else if (mode === 'stored') {
      // The engine's floor: validated events appended to its event log,
      // de-duplicated through its key index, with nothing counted.
      const db = openDatabase(join(dir, 'state.sqlite'));
      const log = new EventLog(db);
      let digest = EMPTY_DIGEST;
      const write = db.transaction((b: WireEvent[]) => {
        const prepared = prepareBatch({ records: b }, DEFAULT_EVENT_LIMITS);
        digest = log.write(prepared.events, prepared.bodies, digest).digest.toHex();
      });
      for (const b of batches()) {
        write(b);
        count += b.length;
      }
      db.close();
    } else {
      const store = ProjectStore.open(join(dir, 'state.sqlite'));
      let offset = 0;
      // Seconds per million events, to see whether the rate holds as the project grows (issue 16: the last million at least 0.8 of the first's rate).
      let mark = performance.now();
      // The same per million, counting only the store's apply: generating a 10M stream slows as the simulator holds more open cases.
      let applying = 0;
      for (const b of batches()) {
        const a0 = performance.now();
        store.apply({ records: b }, { source: 'bench', partition: 0, offset: (offset += b.length) });
        applying += performance.now() - a0;
        count += b.length;
        if (Math.floor(count / 1e6) > Math.floor((count - b.length) / 1e6)) {
          const now = performance.now();
          perMillion.push(+((now - mark) / 1000).toFixed(2));
          applyPerMillion.push(+(applying / 1000).toFixed(2));
          mark = now;
          applying = 0;
        }
      }
      cases = store.snapshot().tally.cases;
      store.close();
    }
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    return { mode, events: count, seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, rssMiB: peakRssMiB(), ...(cases !== undefined ? { cases } : {}), ...(perMillion.length ? { perMillion, applyPerMillion } : {}) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (values.mode) {
  console.log(JSON.stringify(await measure(values.mode)));
} else {
  const runs = Number(values.runs);
  const args = ['--events', String(events), '--batch', String(batchSize), '--open-share', String(openShare)];
  const results: Record<string, Measure[]> = Object.fromEntries(values.modes!.split(',').map((m) => [m, []]));
  for (let r = 0; r < runs; r++) {
    for (const mode of Object.keys(results)) {
      // `pcg import` and `pcg worker` apply on threads given INGEST_HEAP; the engine modes get the same young generation
      // as a node flag (V8 makes it three semi-spaces), since a thread would not inherit tsx.
      const heap = values.heap === 'ingest' && (mode === 'engine' || mode === 'stored') ? [`--max-semi-space-size=${INGEST_HEAP.maxYoungGenerationSizeMb! / 3}`] : [];
      results[mode]!.push(runChild<Measure>(import.meta.url, ['--mode', mode, ...args], heap));
    }
  }
  const has = (m: string) => (results[m]?.length ?? 0) > 0;
  const sec = (m: string) => median(results[m]!.map((x) => x.seconds));
  const cpu = (m: string) => median(results[m]!.map((x) => x.cpuSeconds));
  const rss = (m: string) => Math.max(...results[m]!.map((x) => x.rssMiB));
  const gen = has('generate') ? sec('generate') : 0;
  // The bare inserts take their rows from the simulator in memory: net of generating them, they insert "the same parsed rows".
  const bareNet = (m: string) => Math.max(1e-9, sec(m) - gen);
  const modes = Object.keys(results).filter(has);
  const ratios: Record<string, number> = {};
  for (const base of ['bare', 'bare-one'].filter(has)) {
    for (const m of ['stored', 'engine', 'import'].filter(has)) {
      ratios[`${m}_to_${base}`] = +(sec(base) / sec(m)).toFixed(3);
      // The engine modes generate too; the import reads its file instead: each against the bare insert net of generation.
      const own = m === 'import' ? sec(m) : Math.max(1e-9, sec(m) - gen);
      ratios[`${m}_to_${base}_net_of_generation`] = +(bareNet(base) / own).toFixed(3);
    }
  }
  const report = {
    events,
    cases: results.engine?.[0]?.cases,
    // The simulator's share of cases open at its window's end, and about how many cases are in flight once it runs.
    open_share: openShare,
    cases_in_flight: Math.round(openShare * streamCases),
    batch: batchSize,
    runs,
    seconds: Object.fromEntries(modes.map((m) => [m, +sec(m).toFixed(2)])),
    events_per_s: Object.fromEntries(modes.map((m) => [m, Math.round(events / sec(m))])),
    cpu_s: Object.fromEntries(modes.map((m) => [m, +cpu(m).toFixed(2)])),
    peak_rss_mib: Object.fromEntries(modes.map((m) => [m, rss(m)])),
    ratios,
    // Seconds per successive million events of the engine's first run (the 10M goal compares the last with the first).
    ...(results.engine?.[0]?.perMillion ? { engine_seconds_per_million: results.engine[0].perMillion, apply_seconds_per_million: results.engine[0].applyPerMillion } : {}),
  };
  console.log(JSON.stringify(report, null, 2));
}

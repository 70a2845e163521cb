/**
 * Ingest benchmark (issue 2): events/s and peak RSS for N simulated events
 * into one project through ProjectStore.apply, against a bare SQLite bulk
 * insert of the same rows measured in the same run; and, to show where the
 * gap lies, the engine's floor: the same events validated and written to the
 * engine's event log (appended, de-duplicated by its key index), uncounted.
 *
 *   node --import tsx test/bench/ingest.ts [--events 1000000] [--batch 10000] [--runs 3]
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { checkEvent, ProjectStore, type Event, type WireEvent } from '../../engine/index.js';
import { openDatabase } from '../../engine/store/database.js';
import { EventLog } from '../../engine/store/event-log.js';
import { EMPTY_DIGEST } from '../../engine/store/digest.js';
import { simulate } from '../../connectors/simulator/index.js';
import { median, peakRssMiB, runChild } from './child.js';

const { values } = parseArgs({
  options: {
    mode: { type: 'string' },
    events: { type: 'string', default: '1000000' },
    batch: { type: 'string', default: '10000' },
    runs: { type: 'string', default: '3' },
  },
});
const events = Number(values.events);
const batchSize = Number(values.batch);

/** The same simulated stream for every mode: order-to-cash, 10 events a case on average. */
function* batches(): Generator<WireEvent[]> {
  let batch: WireEvent[] = [];
  let n = 0;
  for (const e of simulate({ model: 'order-to-cash', cases: Math.ceil(events / 5), seed: 42 })) {
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
}

function measure(mode: string): Measure {
  const dir = mkdtempSync(join(tmpdir(), 'pcg-bench-'));
  try {
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    let count = 0;
    let cases: number | undefined;
    if (mode === 'generate') {
      for (const b of batches()) count += b.length;
    } else if (mode === 'bare') {
      // The baseline: the same rows, one prepared insert, one transaction per batch.
      const db = new Database(join(dir, 'bare.sqlite'));
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.exec('CREATE TABLE event (event_id TEXT, case_id TEXT, activity TEXT, time TEXT, payload TEXT) STRICT');
      const insert = db.prepare('INSERT INTO event VALUES (?, ?, ?, ?, ?)');
      const write = db.transaction((b: WireEvent[]) => {
        for (const e of b) insert.run(e.eventId ?? null, e.caseId, e.activity, String(e.timestamp), JSON.stringify(e));
      });
      for (const b of batches()) {
        write(b);
        count += b.length;
      }
      db.close();
    } else if (mode === 'stored') {
      // The engine's floor: validated events appended to its event log,
      // de-duplicated through its key index, with nothing counted.
      const db = openDatabase(join(dir, 'state.sqlite'));
      const log = new EventLog(db);
      let digest = EMPTY_DIGEST;
      const write = db.transaction((b: WireEvent[]) => {
        const events = new Map<string, Event>();
        for (const w of b) {
          const c = checkEvent(w);
          if (c.ok) events.set(c.event.key, c.event);
        }
        digest = log.write(events.values(), digest).digest.toHex();
      });
      for (const b of batches()) {
        write(b);
        count += b.length;
      }
      db.close();
    } else {
      const store = ProjectStore.open(join(dir, 'state.sqlite'));
      let offset = 0;
      for (const b of batches()) {
        store.apply({ records: b }, { source: 'bench', partition: 0, offset: (offset += b.length) });
        count += b.length;
      }
      cases = store.snapshot().tally.cases;
      store.close();
    }
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    return { mode, events: count, seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, rssMiB: peakRssMiB(), ...(cases !== undefined ? { cases } : {}) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (values.mode) {
  console.log(JSON.stringify(measure(values.mode)));
} else {
  const runs = Number(values.runs);
  const args = ['--events', String(events), '--batch', String(batchSize)];
  const results: Record<string, Measure[]> = { generate: [], bare: [], stored: [], engine: [] };
  for (let r = 0; r < runs; r++) {
    for (const mode of Object.keys(results)) results[mode]!.push(runChild<Measure>(import.meta.url, ['--mode', mode, ...args]));
  }
  const sec = (m: string) => median(results[m]!.map((x) => x.seconds));
  const cpu = (m: string) => median(results[m]!.map((x) => x.cpuSeconds));
  const rss = (m: string) => Math.max(...results[m]!.map((x) => x.rssMiB));
  const gen = sec('generate');
  const rate = (m: string) => events / sec(m);
  const rateNet = (m: string) => events / Math.max(1e-9, sec(m) - gen);
  const report = {
    events,
    cases: results.engine![0]!.cases,
    batch: batchSize,
    runs,
    generate_s: +gen.toFixed(2),
    bare_insert_s: +sec('bare').toFixed(2),
    stored_s: +sec('stored').toFixed(2),
    engine_s: +sec('engine').toFixed(2),
    bare_events_per_s: Math.round(rate('bare')),
    engine_events_per_s: Math.round(rate('engine')),
    ratio_engine_to_bare: +(rate('engine') / rate('bare')).toFixed(3),
    ratio_stored_to_bare: +(rate('stored') / rate('bare')).toFixed(3),
    ratio_net_of_generation: +(rateNet('engine') / rateNet('bare')).toFixed(3),
    cpu_s: { generate: +cpu('generate').toFixed(2), bare: +cpu('bare').toFixed(2), stored: +cpu('stored').toFixed(2), engine: +cpu('engine').toFixed(2) },
    ratio_by_cpu_net_of_generation: +((cpu('bare') - cpu('generate')) / (cpu('engine') - cpu('generate'))).toFixed(3),
    engine_peak_rss_mib: rss('engine'),
    bare_peak_rss_mib: rss('bare'),
  };
  console.log(JSON.stringify(report, null, 2));
}

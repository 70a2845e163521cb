import { readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { sleep, type Clock } from './clock.js';
import { f0, f1, lat } from './figures.js';
import { METRICS } from './options.js';
import type { SoakServer } from './server.js';
import type { Tenant } from './tenants.js';
import type { Traffic } from './traffic.js';

/**
 * What must stay flat, read every few seconds from outside the server:
 * /proc/<pid> for RSS, threads, CPU time and descriptors (by kind: sockets,
 * files of the data directory), and its /metrics for what only it knows
 * (V8 heap, event-loop lag, open stores, cached case folds, its own 5xx
 * count). The runner's own event-loop delay is kept too: a runner that
 * stalls would make the server's latencies look worse than they are.
 */
export interface Sample {
  t: number;
  /** The server's CPU time so far (user + system), seconds. */
  cpuSeconds: number;
  rssMiB: number;
  /** RSS split as the kernel counts it: anonymous (heaps, malloc) against file pages (SQLite's -shm maps, binaries). */
  rssAnonMiB: number;
  rssFileMiB: number;
  hwmMiB: number;
  threads: number;
  fds: number;
  sockets: number;
  dbFiles: number;
  heapMiB: number;
  /** V8 heap used right after the latest full collection (pcg_heap_live_bytes): the live data, without the garbage heapMiB saws through. */
  liveHeapMiB: number;
  /** V8 heap committed (used or not): RSS follows it, and it stays high after a full GC has emptied it. */
  heapTotalMiB: number;
  externalMiB: number;
  /** V8 heap used by the work threads together, as they last reported it (pcg_work_thread_heap_bytes). */
  threadHeapMiB: number;
  /** Their live data: heap used right after each one's latest full collection (pcg_work_thread_heap_live_bytes). */
  threadLiveHeapMiB: number;
  openStores: number;
  /** Case folds cached by all open stores together (capped by PCG_CACHED_CASES). */
  cachedFolds: number;
  /** Counter keys the open stores hold in memory (pcg_counter_keys): counted state that grows with the data. */
  counterKeys: number;
  loopP99ms: number;
  dataDirMiB: number;
  serverFiveHundreds: number;
  load1: number;
  clientLoopP99ms: number;
}

function dirBytes(dir: string): number {
  let total = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    try {
      if (e.isDirectory()) total += dirBytes(p);
      else total += statSync(p).size;
    } catch {
      /* removed meanwhile */
    }
  }
  return total;
}

export class Sampler {
  readonly samples: Sample[] = [];
  /** The server's own count of 5xx answers, by method, route and status (from /metrics). */
  readonly fiveHundredRoutes = new Map<string, number>();
  private readonly clientLoop = monitorEventLoopDelay({ resolution: 10 });

  constructor(
    private readonly server: SoakServer,
    private readonly clock: Clock,
    private readonly traffic: Traffic,
  ) {}

  /** Starts measuring the runner's own event-loop delay (from the load's start on). */
  watchRunner(): void {
    this.clientLoop.enable();
  }

  private async metrics(): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    try {
      const r = await fetch(`${this.server.base}/metrics`, { headers: { authorization: `Bearer ${METRICS}` }, signal: AbortSignal.timeout(10_000) });
      const text = await r.text();
      for (const line of text.split('\n')) {
        if (!line || line.startsWith('#')) continue;
        const m = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})? (\S+)/.exec(line);
        if (!m) continue;
        const [, name, labels, value] = m;
        // /health/ready is 503 while the server starts (the runner's own polling): not an error of the run.
        if (name === 'pcg_http_request_duration_seconds_count' && /status="5\d\d"/.test(labels ?? '') && !labels!.includes('/health/ready')) {
          out.set('5xx', (out.get('5xx') ?? 0) + Number(value));
          this.fiveHundredRoutes.set(labels!, Number(value));
        }
        if (!labels) out.set(name!, Number(value));
      }
    } catch {
      /* a missed scrape */
    }
    return out;
  }

  async sample(): Promise<Sample> {
    const { pid, dataDir } = this.server;
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN);
    const fdDir = `/proc/${pid}/fd`;
    let sockets = 0;
    let dbFiles = 0;
    const fds = readdirSync(fdDir);
    for (const fd of fds) {
      try {
        const target = readlinkSync(join(fdDir, fd));
        if (target.startsWith('socket:')) sockets++;
        else if (target.startsWith(dataDir)) dbFiles++;
      } catch {
        /* closed meanwhile */
      }
    }
    // utime + stime, in clock ticks (100 a second on Linux).
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    const cpuSeconds = (Number(stat[11]) + Number(stat[12])) / 100;
    const m = await this.metrics();
    const s: Sample = {
      t: this.clock.now(),
      cpuSeconds,
      rssMiB: kb('VmRSS') / 1024,
      rssAnonMiB: kb('RssAnon') / 1024,
      rssFileMiB: (kb('RssFile') + kb('RssShmem')) / 1024,
      hwmMiB: kb('VmHWM') / 1024,
      threads: Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? NaN),
      fds: fds.length,
      sockets,
      dbFiles,
      heapMiB: (m.get('nodejs_heap_size_used_bytes') ?? NaN) / 2 ** 20,
      // 0 until the first full collection: unknown until then.
      liveHeapMiB: (m.get('pcg_heap_live_bytes') || NaN) / 2 ** 20,
      heapTotalMiB: (m.get('nodejs_heap_size_total_bytes') ?? NaN) / 2 ** 20,
      externalMiB: (m.get('nodejs_external_memory_bytes') ?? NaN) / 2 ** 20,
      threadHeapMiB: (m.get('pcg_work_thread_heap_bytes') ?? NaN) / 2 ** 20,
      threadLiveHeapMiB: (m.get('pcg_work_thread_heap_live_bytes') || NaN) / 2 ** 20,
      openStores: m.get('pcg_open_project_stores') ?? NaN,
      cachedFolds: m.get('pcg_cached_case_folds') ?? NaN,
      counterKeys: m.get('pcg_counter_keys') ?? NaN,
      loopP99ms: (m.get('nodejs_eventloop_lag_p99_seconds') ?? NaN) * 1000,
      dataDirMiB: dirBytes(dataDir) / 2 ** 20,
      serverFiveHundreds: m.get('5xx') ?? 0,
      load1: loadavg()[0]!,
      clientLoopP99ms: this.clientLoop.percentile(99) / 1e6,
    };
    this.clientLoop.reset();
    return s;
  }

  /** A sample every `seconds` on the run's clock until the load stops or the server dies, each logged with the window's latencies per tenant. */
  async run(good: Tenant[], seconds: number, signal: AbortSignal): Promise<void> {
    const { traffic, clock } = this;
    let last = 0;
    while (!signal.aborted) {
      await sleep(clock.startedAt + last + seconds * 1000 - performance.now(), signal);
      if (signal.aborted || this.server.died) break;
      const s = await this.sample().catch(() => undefined);
      if (!s) continue;
      this.samples.push(s);
      const from = last;
      last += seconds * 1000;
      const perTenant = good.map((t) => `${t.name} r ${lat(traffic.between(from, last, 'read', t.name))} i ${lat(traffic.between(from, last, 'ingest', t.name))}`).join(' | ');
      console.error(
        `[${f0(s.t / 1000).padStart(4)} s] rss ${f0(s.rssMiB)} MiB (anon ${f0(s.rssAnonMiB)}) heap ${f0(s.heapMiB)} (live ${f0(s.liveHeapMiB)}) of ${f0(s.heapTotalMiB)} threads' heap ${f0(s.threadHeapMiB)} (live ${f0(s.threadLiveHeapMiB)}) fds ${s.fds} (sock ${s.sockets}, data ${s.dbFiles}) stores ${s.openStores} folds ${f0(s.cachedFolds)} keys ${f0(s.counterKeys)} loop p99 ${f1(s.loopP99ms)} ms data ${f0(s.dataDirMiB)} MiB load ${s.load1.toFixed(2)} 5xx ${traffic.fiveHundreds.length} | p50/p99 ms ${perTenant}`,
      );
    }
  }
}

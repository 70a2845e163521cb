import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { f0, f1, lat, mean, pct, slope } from './figures.js';
import { commandLine, type SoakOptions } from './options.js';
import type { Sample } from './sampler.js';
import type { ServerLogs } from './server.js';
import type { Tenant, Upload } from './tenants.js';
import type { Kind, Traffic } from './traffic.js';

/**
 * The report: a table by minute, the flatness checks (the last third of the
 * run against the first, after a warm-up), where the well-behaved tenants'
 * time went by route, and the verdict. Markdown on stdout, ready for
 * BENCHMARKS.md; statuses, 5xx and log lines on stderr; everything as JSON in
 * a temp file, for a closer look after the run.
 */
/** Live heap a counter key takes in a store's key book (its strings and array slots), from heap snapshots of soak runs. */
const KEY_BYTES = 220;

export interface RunOutcome {
  options: SoakOptions;
  startedAt: Date;
  /** Load averages (1, 5, 15 min) when the load started and ended. */
  loadStart: number[];
  loadEnd: number[];
  /** When the load was stopped, and when the last sample was taken (ms into the run). */
  loadMs: number;
  elapsedMs: number;
  /** The idle baseline first, then one a sample period. */
  samples: Sample[];
  /** The sample after the load, if the server was still there. */
  final: Sample | undefined;
  fiveHundredRoutes: Map<string, number>;
  traffic: Traffic;
  good: Tenant[];
  uploads: Upload[];
  died: string | undefined;
  /** How the server answered SIGTERM. */
  stopped: string;
  logs: ServerLogs;
}

interface Check {
  what: string;
  first: number;
  last: number;
  ratio: number;
  flat: boolean;
  note: string;
}

/** Prints the report and writes the JSON dump; true when the run failed (a 5xx, a failed good request, a dead server, an unclean stop). */
export function report(o: RunOutcome): boolean {
  const { traffic, samples, good, options } = o;
  const { recs, totals, sseEvents, wideBuilds } = traffic;
  const between = traffic.between.bind(traffic);
  const loaded = samples.slice(1);

  const minutesRun = Math.ceil(o.elapsedMs / 60_000 - 0.01);
  const rows: string[] = [];
  rows.push('| minute | RSS MiB (end / max) | heap MiB (live) | fds (end / max) | sockets | data-dir fds | open stores | cached folds | server loop p99 ms | read p50 / p99 ms | worst tenant read p99 | ingest p50 / p99 ms | worst tenant ingest p99 | upload p50 ms | good reqs | chaos reqs | server CPU % | load avg 1m |');
  rows.push('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  const base0 = samples[0]!;
  rows.push(`| idle | ${f0(base0.rssMiB)} | ${f0(base0.heapMiB)} (${f0(base0.liveHeapMiB)}) | ${base0.fds} | ${base0.sockets} | ${base0.dbFiles} | ${base0.openStores} | ${f0(base0.cachedFolds)} | ${f1(base0.loopP99ms)} | | | | | | | | | ${base0.load1.toFixed(2)} |`);
  const chaosCount = (from: number, to: number) => traffic.chaosTimes.filter((t) => t >= from && t < to).length;
  for (let m = 0; m < minutesRun; m++) {
    const from = m * 60_000;
    const to = from + 60_000;
    const ss = loaded.filter((s) => s.t > from && s.t <= to + 1);
    if (!ss.length) continue;
    const end = ss[ss.length - 1]!;
    const before = [...samples].reverse().find((s) => s.t <= from + 1) ?? samples[0]!;
    const cpu = ((end.cpuSeconds - before.cpuSeconds) / ((end.t - before.t) / 1000)) * 100;
    const worst = (kind: Kind) => Math.max(...good.map((t) => pct(between(from, to, kind, t.name), 0.99)).filter(Number.isFinite));
    rows.push(
      `| ${m + 1} | ${f0(end.rssMiB)} / ${f0(Math.max(...ss.map((s) => s.rssMiB)))} | ${f0(end.heapMiB)} (${f0(end.liveHeapMiB)}) | ${end.fds} / ${Math.max(...ss.map((s) => s.fds))} | ${end.sockets} | ${end.dbFiles} | ${end.openStores} | ${f0(end.cachedFolds)} | ${f1(Math.max(...ss.map((s) => s.loopP99ms)))} | ${lat(between(from, to, 'read'))} | ${f0(worst('read'))} | ${lat(between(from, to, 'ingest'))} | ${f0(worst('ingest'))} | ${f0(pct(between(from, to, 'upload'), 0.5))} | ${recs.filter((r) => r.t >= from && r.t < to).length} | ${chaosCount(from, to) || '-'} | ${f0(cpu)} | ${end.load1.toFixed(2)} |`,
    );
  }

  // Flatness: after a warm-up, the last third of the rest against the first. The warm-up is the first minute (a fifth
  // of shorter runs: JIT, caches, the pathological tenant's projects filling up to its limit), or longer, until the
  // workload's longest cycle has run once: the pathological tenant's wide project grows to 2,000 activities (~100-180 s)
  // and the counter key books of its stores grow with it (heap snapshots: live heap 95 MiB at 3 minutes, 140 at 6,
  // 138 at 9). Compared before that, the first third measures the warm-up, not a trend. At most a third of the run.
  const firstCycle = traffic.wideCycles[0];
  const warmMs = Math.min(Math.max(Math.min(60_000, o.loadMs / 5), firstCycle ?? 0), o.loadMs / 3);
  const third = (o.loadMs - warmMs) / 3;
  const firstFrom = warmMs;
  const firstTo = warmMs + third;
  const lastFrom = warmMs + 2 * third;
  const inFirst = loaded.filter((s) => s.t > firstFrom && s.t <= firstTo + 1);
  const inLast = loaded.filter((s) => s.t > lastFrom);
  const checks: Check[] = [];
  const check = (what: string, first: number, last: number, limit: number, slack: number, note = '') => {
    checks.push({ what, first, last, ratio: last / first, flat: last <= first * limit + slack, note });
  };
  const p99 = (from: number, to: number, kind: Kind, tenant?: string) => pct(between(from, to, kind, tenant), 0.99);
  const p50 = (from: number, to: number, kind: Kind) => pct(between(from, to, kind), 0.5);
  const afterWarmup = loaded.filter((s) => s.t > firstTo);
  const rssSlope = slope(afterWarmup.map((s) => ({ x: s.t / 60_000, y: s.rssMiB })));
  const heapSlope = slope(afterWarmup.map((s) => ({ x: s.t / 60_000, y: s.heapMiB })));
  check('RSS MiB (mean of samples)', mean(inFirst.map((s) => s.rssMiB)), mean(inLast.map((s) => s.rssMiB)), 1.2, 0, `slope over the last two thirds ${f1(rssSlope)} MiB/min`);
  // Heap used saws between full GCs (here about a minute apart): its mean is mostly how far V8 lets the heap grow before
  // collecting (a multiple of the live heap it last found), and its lowest sample in a third only as low as a sample
  // happened to fall after a collection. The live heap (the server's heap right after each full collection,
  // pcg_heap_live_bytes) is what says whether memory grows: the other two are shown as context.
  check('V8 heap used MiB (mean)', mean(inFirst.map((s) => s.heapMiB)), mean(inLast.map((s) => s.heapMiB)), Infinity, 0, `context only: the sawtooth between collections (slope ${f1(heapSlope)} MiB/min)`);
  const live = (ss: Sample[]) => mean(ss.map((s) => s.liveHeapMiB).filter(Number.isFinite));
  // The counted state held in memory grows with the data, not with time: the streams' end counters per hour of their
  // (fast-forwarded) simulated time, wait buckets, variants; each store's key book is bounded (200,000 keys, ~45 MiB).
  const keys = (ss: Sample[]) => mean(ss.map((s) => s.counterKeys).filter(Number.isFinite));
  const keysFirst = keys(inFirst);
  const keysLast = keys(inLast);
  check('counter keys held by open stores (thousands)', keysFirst / 1000, keysLast / 1000, Infinity, 0, "context only: counted state, growing with the streams' data");
  // So the live heap may grow by what those keys take (~220 bytes each, measured in heap snapshots) besides its 1.2x.
  const countedMiB = Number.isFinite(keysLast - keysFirst) ? (Math.max(0, keysLast - keysFirst) * KEY_BYTES) / 2 ** 20 : 0;
  check('V8 live heap MiB (mean, after each full GC)', live(inFirst), live(inLast), 1.2, countedMiB, `1.2x plus the counter keys' growth (${f1(countedMiB)} MiB)`);

  const threadHeap = (ss: Sample[]) => mean(ss.map((s) => s.threadHeapMiB).filter(Number.isFinite));
  check("work threads' V8 heap used MiB (mean)", threadHeap(inFirst), threadHeap(inLast), Infinity, 0, 'context only: the heaps of the threads that ingest and build, young generation included');
  const threadLive = (ss: Sample[]) => mean(ss.map((s) => s.threadLiveHeapMiB).filter(Number.isFinite));
  check("work threads' V8 live heap MiB (mean, after each one's full GCs)", threadLive(inFirst), threadLive(inLast), Infinity, 0, "context only: the threads' live data (their stores' counted state and caches)");
  check('V8 heap floor MiB (lowest sample)', Math.min(...inFirst.map((s) => s.heapMiB)), Math.min(...inLast.map((s) => s.heapMiB)), Infinity, 0, 'context only: a sample, not a collection');
  check('open fds (mean)', mean(inFirst.map((s) => s.fds)), mean(inLast.map((s) => s.fds)), 1.2, 8);
  check('open fds (max)', Math.max(...inFirst.map((s) => s.fds)), Math.max(...inLast.map((s) => s.fds)), 1.2, 8);
  check('good tenants read p99 ms', p99(firstFrom, firstTo, 'read'), p99(lastFrom, Infinity, 'read'), 1.5, 5);
  check('good tenants ingest p99 ms', p99(firstFrom, firstTo, 'ingest'), p99(lastFrom, Infinity, 'ingest'), 1.5, 5);
  for (const t of good) {
    check(`${t.name} read p99 ms`, p99(firstFrom, firstTo, 'read', t.name), p99(lastFrom, Infinity, 'read', t.name), 1.5, 5);
    check(`${t.name} ingest p99 ms`, p99(firstFrom, firstTo, 'ingest', t.name), p99(lastFrom, Infinity, 'ingest', t.name), 1.5, 5);
  }
  check('good tenants read p50 ms', p50(firstFrom, firstTo, 'read'), p50(lastFrom, Infinity, 'read'), 1.5, 2);
  check('good tenants ingest p50 ms', p50(firstFrom, firstTo, 'ingest'), p50(lastFrom, Infinity, 'ingest'), 1.5, 2);
  check('load average 1 min (machine)', mean(inFirst.map((s) => s.load1)), mean(inLast.map((s) => s.load1)), Infinity, 0, 'context only');

  // Per route: where the good tenants' time went, first and last third.
  const labels = [...new Set(recs.map((r) => `${r.kind} ${r.label}`))].sort();
  const byLabel = labels.map((l) => {
    const mine = recs.filter((r) => `${r.kind} ${r.label}` === l);
    const of = (from: number, to: number) => mine.filter((r) => r.t >= from && r.t < to && r.status > 0).map((r) => r.ms);
    return `| ${l} | ${mine.length} | ${lat(of(firstFrom, firstTo))} | ${lat(of(lastFrom, Infinity))} | ${f0(Math.max(...mine.map((r) => r.ms)))} |`;
  });

  const statusLines: string[] = [];
  for (const [tenant, m] of traffic.statuses) {
    if (tenant === 'setup') continue;
    const entries = [...m.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1));
    statusLines.push(`${tenant}: ${entries.map(([k, v]) => `${k}: ${v}`).join('; ')}`);
  }

  const serverFiveHundreds = o.final?.serverFiveHundreds ?? samples[samples.length - 1]!.serverFiveHundreds;
  const flat = checks.filter((c) => !c.note.startsWith('context')).every((c) => c.flat);
  const failed = o.died !== undefined || traffic.fiveHundreds.length > 0 || serverFiveHundreds > 0 || traffic.failures.length > 0 || o.stopped !== 'exit 0';
  const uploadBytes = o.uploads.map((u) => u.bytes.length);

  const out: string[] = [];
  out.push(`## soak: ${o.startedAt.toISOString()}, ${f1(o.elapsedMs / 60_000)} min of load${options.pathological ? ' with the pathological tenant' : ' (pathological tenant off)'}`);
  out.push('');
  out.push(`command: ${commandLine(options)}`);
  out.push(`load average at start ${o.loadStart.map((x) => x.toFixed(2)).join(' / ')}, at end ${o.loadEnd.map((x) => x.toFixed(2)).join(' / ')} (1 / 5 / 15 min); samples' 1-min load ${f1(Math.min(...loaded.map((s) => s.load1)))}-${f1(Math.max(...loaded.map((s) => s.load1)))}`);
  out.push(
    `work: ${totals.goodEvents} events ingested by the good tenants (+${totals.badEvents} accepted from chaos), ${totals.uploads} uploads and ${totals.deletes} dataset deletes, ${totals.sseConnects} good SSE connections (${[...sseEvents.entries()].filter(([k]) => !k.startsWith('chaos')).reduce((a, [, v]) => a + v, 0)} events received); chaos: ${totals.projectsMade} projects made, ${totals.projectsDeleted} deleted, ${totals.projectLimitHits} project-limit 422s, ${totals.keysIssued} keys issued and revoked, ${totals.badStreams} streams opened and dropped (revoked-key streams ended: ${totals.revokedStreamsEnded}, left open: ${totals.revokedStreamsLeftOpen}), wide-project builds ${wideBuilds.length} (up to ${Math.max(0, ...wideBuilds.map((b) => b.activities))} activities, slowest ${f0(Math.max(0, ...wideBuilds.map((b) => b.ms)))} ms)`,
  );
  out.push(`upload files: ${uploadBytes.length}, ${f0(Math.min(...uploadBytes) / 1024)}-${f0(Math.max(...uploadBytes) / 1024)} KiB; data dir at the end ${f0(o.final?.dataDirMiB ?? NaN)} MiB; server peak RSS (VmHWM) ${f0(o.final?.hwmMiB ?? NaN)} MiB, threads ${o.final?.threads ?? '-'}`);
  out.push('');
  out.push(rows.join('\n'));
  out.push('');
  out.push('Latencies are the well-behaved tenants\' (client side, body read included): reads are every GET but streams, ingests `POST …/events` of 150 events; "worst tenant" is the highest of the three tenants\' p99 that minute.');
  out.push('');
  out.push(
    `Flatness: the first third after a ${f0(warmMs / 1000)} s warm-up (${firstCycle !== undefined && warmMs > 60_000 ? "until the wide project's first cycle ended" : 'the first minute'}; ${f0(firstFrom / 1000)}-${f0(firstTo / 1000)} s) against the last third (${f0(lastFrom / 1000)}-${f0(o.loadMs / 1000)} s).`,
  );
  out.push('');
  out.push('| flatness: last third vs first third | first | last | ratio | verdict |');
  out.push('|---|---|---|---|---|');
  for (const c of checks) out.push(`| ${c.what} | ${f1(c.first)} | ${f1(c.last)} | ${Number.isFinite(c.ratio) ? c.ratio.toFixed(2) : '-'} | ${c.note.startsWith('context') ? c.note : `${c.flat ? 'flat' : '**grows**'}${c.note ? ` (${c.note})` : ''}`} |`);
  out.push('');
  out.push('| good tenants: route | requests | first third p50 / p99 ms | last third p50 / p99 ms | max ms |');
  out.push('|---|---|---|---|---|');
  out.push(byLabel.join('\n'));
  out.push('');
  out.push(`server: ${o.died ?? 'alive to the end'}; SIGTERM at the end: ${o.stopped}; log lines at warn ${o.logs.warn}, error+ ${o.logs.error}, other ${o.logs.other}`);
  out.push(`5xx seen by the clients: ${traffic.fiveHundreds.length}; 5xx counted by the server's /metrics: ${serverFiveHundreds}; failed well-behaved requests (no answer, stream ended): ${traffic.failures.length}; unexpected statuses: ${traffic.unexpected.length}; runner event-loop p99 max ${f1(Math.max(...loaded.map((s) => s.clientLoopP99ms)))} ms`);
  out.push(`verdict: ${flat ? 'FLAT' : 'NOT FLAT'} (RSS and live heap within 1.2x (the heap plus its counted state's growth), fds within 1.2x + 8, p50/p99 within 1.5x + a few ms, last third against first); ${failed ? 'FAILED' : 'no 5xx, no failures, server alive'}`);
  console.log(out.join('\n'));

  console.error('\nstatuses by tenant and route:\n' + statusLines.join('\n'));
  if (traffic.fiveHundreds.length) console.error('\n5xx:\n' + traffic.fiveHundreds.slice(0, 50).join('\n'));
  if (o.fiveHundredRoutes.size) console.error('\n5xx by route (server /metrics):\n' + [...o.fiveHundredRoutes].map(([k, v]) => `${k}: ${v}`).join('\n'));
  if (traffic.failures.length) console.error('\nfailed well-behaved requests:\n' + traffic.failures.slice(0, 50).join('\n'));
  if (traffic.unexpected.length) console.error('\nunexpected statuses:\n' + traffic.unexpected.slice(0, 50).join('\n'));
  if (o.logs.samples.length) console.error(`\nserver log (first ${Math.min(30, o.logs.samples.length)} lines):\n` + o.logs.samples.slice(0, 30).join('\n'));
  const dump = join(tmpdir(), `pcg-soak-${o.startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
  console.error(`\nsamples, statuses and log lines: ${dump}`);
  const statuses = Object.fromEntries([...traffic.statuses].map(([k, v]) => [k, Object.fromEntries(v)]));
  writeFileSync(dump, JSON.stringify({ samples, checks, totals, statuses, fiveHundreds: traffic.fiveHundreds, failures: traffic.failures, unexpected: traffic.unexpected, wideBuilds, logs: o.logs }, null, 1));
  return failed;
}

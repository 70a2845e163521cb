import { mkdtempSync, rmSync } from 'node:fs';
import { setMaxListeners } from 'node:events';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Clock, sleep } from './clock.js';
import { readOptions } from './options.js';
import { Pathological } from './pathological.js';
import { report } from './report.js';
import { Sampler } from './sampler.js';
import { startServer } from './server.js';
import { makeTenants, makeUploads } from './tenants.js';
import { Traffic } from './traffic.js';
import { wellBehaved } from './well-behaved.js';

/**
 * The soak's run, in order: the server, the tenants, an idle sample, the
 * load for --minutes with a sample every --sample-seconds, requests in
 * flight let finish, a last sample, SIGTERM, the report. Bounded whatever
 * happens: a hard stop kills everything after minutes + 1.
 */
const options = readOptions();
const clock = new Clock();
const load = new AbortController();
// Every loop's pause listens on it: dozens at once, none left behind.
setMaxListeners(0, load.signal);

const filesDir = mkdtempSync(join(tmpdir(), 'pcg-soak-files-'));
// A server that dies ends the load at once: the report then says so and the run fails.
const server = await startServer(() => load.abort(), options.heapSnapshotAt.length > 0, options.cpuProfile);
const cleanup = () => {
  server.kill();
  rmSync(filesDir, { recursive: true, force: true });
};
const hardStop = setTimeout(() => {
  console.error(`\n!! hard stop after ${options.minutes + 1} minutes: killing the server`);
  cleanup();
  process.exit(3);
}, (options.minutes + 1) * 60_000);
hardStop.unref();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`\n!! ${signal}: killing the server`);
    cleanup();
    process.exit(130);
  });
}
await server.ready().catch((error) => {
  cleanup();
  throw error;
});

const traffic = new Traffic(server.base, clock, load.signal);
const { good, chaos } = await makeTenants(traffic, options.pathological);
const uploads = await makeUploads(good, filesDir);
const sampler = new Sampler(server, clock, traffic);

const loadStart = loadavg();
const startedAt = new Date();
console.error(
  `soak: pcg serve pid ${server.pid} on ${server.base}, data dir ${server.dataDir}, ${options.minutes} min, samples every ${options.sampleSeconds} s, pathological tenant ${options.pathological ? 'on' : 'off'}, load average ${loadStart.map((x) => x.toFixed(2)).join(' ')}`,
);
sampler.samples.push(await sampler.sample()); // the idle baseline, before any load
clock.start();
sampler.samples[0]!.t = 0;
sampler.watchRunner();
const stopTimer = setTimeout(() => load.abort(), options.durationMs);
const snapshotTimers = options.heapSnapshotAt.map((minute) =>
  setTimeout(() => {
    console.error(`soak: heap snapshot of the server at ${minute} min into ${server.snapshotDir}`);
    server.heapSnapshot();
  }, minute * 60_000),
);
const workers: Promise<unknown>[] = [sampler.run(good, options.sampleSeconds, load.signal)];
for (const [i, t] of good.entries()) workers.push(...wellBehaved({ traffic, signal: load.signal, streamCases: options.streamCases }, t, i, uploads.get(t.name)!));
if (chaos) workers.push(...new Pathological({ traffic, signal: load.signal }, chaos, good[0]!).run());
await Promise.race([Promise.all(workers), new Promise((r) => load.signal.addEventListener('abort', r, { once: true }))]);
clearTimeout(stopTimer);
for (const t of snapshotTimers) clearTimeout(t);
load.abort();
const loadMs = clock.now();
// Requests in flight finish (or time out) before the last sample.
await Promise.race([Promise.allSettled(workers), sleep(30_000)]);
const loadEnd = loadavg();
const final = server.died ? undefined : await sampler.sample().catch(() => undefined);
const elapsedMs = clock.now();

// A graceful stop under load's aftermath: SIGTERM must exit 0.
const stopped = await server.stop();
rmSync(filesDir, { recursive: true, force: true });
clearTimeout(hardStop);

const failed = report({
  options,
  startedAt,
  loadStart,
  loadEnd,
  loadMs,
  elapsedMs,
  samples: sampler.samples,
  final,
  fiveHundredRoutes: sampler.fiveHundredRoutes,
  traffic,
  good,
  uploads: [...uploads.values()].flat(),
  died: server.died,
  stopped,
  logs: server.logs,
});
if (server.profileDir) console.error(`soak: the server's CPU profiles (one per thread): ${server.profileDir}`);
process.exit(failed ? 1 : 0);

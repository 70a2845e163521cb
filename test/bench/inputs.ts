/**
 * Bounded inputs (issue 32): the hostile inputs of the security review at
 * full size, generated here (never committed), against the code that reads
 * them. Not a test: it prints figures for BENCHMARKS.md.
 *
 *   node --import tsx test/bench/inputs.ts [--skip-slow]
 *
 * 1. The NDJSON line reader on one long line fed in 256 KB chunks (a gzip's
 *    chunks): the cost per MB at two sizes and their ratio (best of three), for the reader
 *    before issue 32 (kept below as `joinSplitReader`, the line joined to
 *    every chunk and split again) and for NdjsonReader now; 1.0 is linear, the
 *    old one's grows with the line. Then the review's file, 640 MiB of line in
 *    about 650 KB of gzip, through checkLog under the default limits.
 * 2. OCEL 2.0 JSON of 600 events each related to the same 600 objects
 *    (28.7 MB, the review's shape): checkLog under the default limits, and
 *    the import of smaller squares with the relations budget lifted, seconds
 *    per million flattened relations (linear in them: the budget bounds it).
 * 3. OCEL-SQLite whose `event` table is a view over a recursive CTE: reading
 *    the view itself, then checkLog (refused from the schema).
 * 4. 2 GiB of newlines in about 2 MB of gzip: checkLog (refused by the ratio
 *    once past 64 MiB), and, with --skip-slow left out, without the ratio bound.
 * 5. One event of 300,000 objects across 50,000 types (10.9 MB) through
 *    `POST …/events` of an app (app.inject), then the first `GET …/graph`.
 * 6. The wire event's check (`checkEvent`) refusing one event over a limit: a
 *    10 MB activity name, 200,000 attributes, 300,000 objects (counted, never
 *    parsed one by one; test/engine/event.test.ts holds the refusals, this
 *    their cost).
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createApp } from '../../api/app.js';
import { readConfig } from '../../api/config.js';
import { checkLog, importLog, readLimits } from '../../connectors/files/index.js';
import { checkEvent, eventLimits, NdjsonReader, ProjectStore } from '../../engine/index.js';
import { gzipTo, longLineNdjson, newlines, ocelSqlite, wideOcelJson } from '../tools/hostile.js';

const { values } = parseArgs({ options: { 'skip-slow': { type: 'boolean', default: false } } });
const dir = mkdtempSync(join(tmpdir(), 'pcg-bench-inputs-'));
const MiB = 2 ** 20;
const CHUNK = 256 * 1024;

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
async function timed<T>(run: () => Promise<T> | T): Promise<{ ms: number; value: T | Error }> {
  const started = performance.now();
  let value: T | Error;
  try {
    value = await run();
  } catch (error) {
    value = error as Error;
  }
  return { ms: performance.now() - started, value };
}

/** The line reader before issue 32, as it was: the unfinished line joined to each chunk and the whole split again. */
class joinSplitReader {
  private rest = '';
  push(text: string): number {
    const lines = (this.rest + text).split('\n');
    this.rest = lines.pop()!;
    return lines.length;
  }
}

/** Feeds one line of `mib` MiB, then its line end, in 256 KB chunks; ms. */
function feed(reader: { push(text: string): unknown }, mib: number): number {
  const chunk = 'x'.repeat(CHUNK);
  const started = performance.now();
  for (let left = mib * MiB; left > 0; left -= CHUNK) reader.push(chunk);
  reader.push('\n');
  return performance.now() - started;
}

/** The best of three feeds: the machine is shared, and the least disturbed run is the reader's own cost. */
const best = (make: () => { push(text: string): unknown }, mib: number) => Math.min(feed(make(), mib), feed(make(), mib), feed(make(), mib));

function linearity(name: string, make: () => { push(text: string): unknown }, small: number, large: number): void {
  const a = best(make, small);
  const b = best(make, large);
  const perA = a / small;
  const perB = b / large;
  console.log(`  ${name}: ${small} MiB ${a.toFixed(0)} ms (${perA.toFixed(2)} ms/MiB), ${large} MiB ${b.toFixed(0)} ms (${perB.toFixed(2)} ms/MiB): per-MB ratio ${(perB / perA).toFixed(2)}`);
}

try {
  console.log('1. NDJSON: one long line in 256 KB chunks (per-MB cost at two sizes; 1.00 is linear)');
  linearity('before (join and split at every chunk)', () => new joinSplitReader(), 8, 32);
  linearity('now (pieces joined once)', () => new NdjsonReader(), 8, 32);
  linearity('now (pieces joined once)', () => new NdjsonReader(), 64, 256);
  const longFile = join(dir, 'long.ndjson.gz');
  await gzipTo(longFile, () => longLineNdjson(640 * MiB));
  const long = await timed(() => checkLog(longFile));
  console.log(`  640 MiB line, ${(statSync(longFile).size / 1024).toFixed(0)} KB of gzip, checkLog (default limits): ${seconds(long.ms)}: ${long.value instanceof Error ? long.value.message : 'accepted'}`);

  console.log('2. OCEL 2.0 JSON, events each related to the same objects');
  const square = join(dir, 'square.jsonocel');
  // Longer ids than the test's: the review's file was 28.7 MB.
  writeFileSync(square, wideOcelJson(600, 600).replaceAll('object-', 'object-of-the-square-').replaceAll('part of', 'part of the shipment'));
  const wide = await timed(() => checkLog(square));
  console.log(`  600 × 600 (${(statSync(square).size / 1e6).toFixed(1)} MB), checkLog (default limits): ${seconds(wide.ms)}: ${wide.value instanceof Error ? wide.value.message.slice(0, 140) : 'accepted'}`);
  const lifted = readLimits({ ocelRelations: 2_000_000_000 });
  for (const n of [60, 100, 140]) {
    const file = join(dir, `square-${n}.jsonocel`);
    writeFileSync(file, wideOcelJson(n, n));
    const storeDir = mkdtempSync(join(dir, 'store-'));
    const store = ProjectStore.open(join(storeDir, 'state.sqlite'), { limits: eventLimits({ objectsPerEvent: 1000 }) });
    const imported = await timed(() => importLog(store, file, {}, { limits: lifted, thread: false }));
    store.close();
    const relations = n ** 3;
    console.log(`  ${n} × ${n}: ${(relations / 1e6).toFixed(2)} M flattened relations, import ${seconds(imported.ms)}: ${((imported.ms / 1000) * (1e6 / relations)).toFixed(2)} s per million${imported.value instanceof Error ? ` (${imported.value.message})` : ''}`);
    rmSync(storeDir, { recursive: true, force: true });
  }

  console.log('3. OCEL-SQLite: `event` a view over a recursive CTE');
  const view = join(dir, 'view.sqlite');
  ocelSqlite(view, 'recursive view', 3_000_000);
  const db = new Database(view, { readonly: true });
  const read = await timed(() => db.prepare('SELECT ocel_id FROM event LIMIT 1').get());
  db.close();
  console.log(`  ${(statSync(view).size / 1024).toFixed(0)} KB file; reading the view's first row: ${seconds(read.ms)} (one SQLite call)`);
  const refused = await timed(() => checkLog(view));
  console.log(`  checkLog: ${seconds(refused.ms)}: ${refused.value instanceof Error ? refused.value.message.slice(0, 100) : 'accepted'}`);

  console.log('4. 2 GiB of newlines in gzip');
  const bomb = join(dir, 'bomb.ndjson.gz');
  await gzipTo(bomb, () => newlines(2048 * MiB));
  const ratio = await timed(() => checkLog(bomb));
  console.log(`  ${(statSync(bomb).size / 1e6).toFixed(1)} MB of gzip, checkLog (default limits): ${seconds(ratio.ms)}: ${ratio.value instanceof Error ? ratio.value.message : 'accepted'}`);
  if (!values['skip-slow']) {
    const all = await timed(() => checkLog(bomb, {}, readLimits({ decompressedRatio: 0 })));
    console.log(`  without the ratio bound: ${seconds(all.ms)} (${all.value instanceof Error ? all.value.message : 'read whole'})`);
  }

  console.log('5. One event of 300,000 objects across 50,000 types, over HTTP');
  const key = 'bench-global-key-0123456789abcdef';
  const made = createApp({ config: readConfig({}, { dataDir: join(dir, 'app'), globalApiKey: key, logLevel: 'silent', rateLimitBurst: 0 }) });
  const call = async (method: 'GET' | 'POST', url: string, auth: string, body?: unknown) => {
    const r = await made.app.inject({ method, url, headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { payload: JSON.stringify(body) }) });
    return { status: r.statusCode, body: JSON.parse(r.body) as any, bytes: r.body.length };
  };
  const tenant = (await call('POST', '/api/tenant', key, { name: 'bench' })).body.id;
  const user = (await call('POST', '/api/user', key, { email: 'bench@example.com' })).body.id;
  await call('POST', `/api/tenant/${tenant}/user`, key, { userId: user, permissions: ['read', 'write'] });
  const tenantKey = (await call('POST', `/api/tenant/${tenant}/apikey`, key, { userId: user, name: 'bench' })).body.key;
  const projectId = (await call('POST', `/api/${tenant}/project`, tenantKey, { name: 'objects' })).body.id;
  const event = { caseId: 'c1', activity: 'a', timestamp: '2024-01-01T00:00:00Z', objects: Array.from({ length: 300_000 }, (_, i) => ({ id: `object-${i}`, type: `type-${i % 50_000}` })) };
  console.log(`  request: ${(JSON.stringify([event]).length / 1e6).toFixed(1)} MB`);
  const ingest = await timed(() => call('POST', `/api/${tenant}/project/${projectId}/events`, tenantKey, [event]));
  const answer = ingest.value as Awaited<ReturnType<typeof call>>;
  console.log(`  ingest ${seconds(ingest.ms)}: ${JSON.stringify(answer.body.rejections ?? answer.body).slice(0, 160)}`);
  const graph = await timed(() => call('GET', `/api/${tenant}/project/${projectId}/graph`, tenantKey));
  const doc = graph.value as Awaited<ReturnType<typeof call>>;
  console.log(`  first graph ${seconds(graph.ms)}: ${doc.body.object_types?.length ?? '?'} object types, ${(doc.bytes / 1e3).toFixed(0)} KB`);
  await made.app.close();

  console.log('6. checkEvent refusing one event over a limit (best of three)');
  const base = { caseId: 'c1', activity: 'a', timestamp: '2024-01-01T00:00:00Z' };
  const huge: [string, Record<string, unknown>][] = [
    ['10 MB activity name', { ...base, activity: 'x'.repeat(10 * MiB) }],
    ['200,000 attributes', { ...base, attributes: Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`a${i}`, i])) }],
    ['300,000 objects', { ...base, objects: Array.from({ length: 300_000 }, (_, i) => ({ id: `o${i}`, type: `t${i % 50_000}` })) }],
  ];
  for (const [name, input] of huge) {
    let best = Number.POSITIVE_INFINITY;
    let reason = '';
    for (let k = 0; k < 3; k++) {
      const r = await timed(() => checkEvent(input));
      best = Math.min(best, r.ms);
      reason = r.value instanceof Error ? r.value.message : r.value.ok ? 'accepted' : r.value.reason;
    }
    console.log(`  ${name}: ${best.toFixed(1)} ms: ${reason.slice(0, 100)}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

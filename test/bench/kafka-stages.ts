/**
 * Where a Kafka worker's CPU goes, stage by stage, without a broker (issue 13):
 * N simulated order-to-cash messages (JSON bytes, as a producer writes them)
 * spread over four partitions by case, then every chunk of 5,000 of a
 * partition through the stages a worker runs, on one thread, each timed:
 *
 * - consumer thread: `map` (UTF-8 check, JSON.parse, chunkBatch), `prepare`
 *   (validation, event digests, bodies: prepareBatch), `portable` (toPortable)
 *   and `serialize` (V8's serializer, what postMessage does);
 * - writing thread: `deserialize`, `fromPortable`, `apply` (ingestPart into
 *   the partition's store, as `pcg worker` does).
 *
 * Not measured here: kafkajs's fetching and decoding (the bench's bare
 * consumer), the threads' own GC beside each other, the broker.
 *
 *   node --max-semi-space-size=64 --import tsx test/bench/kafka-stages.ts [--events 1000000]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { deserialize, serialize } from 'node:v8';
import { chunkBatch } from '../../connectors/kafka/chunk.js';
import { compileMapping } from '../../connectors/kafka/mapping.js';
import { CHUNK } from '../../connectors/kafka/runner.js';
import { simulate } from '../../connectors/simulator/index.js';
import { ProjectRegistry } from '../../engine/projects/index.js';
import { fromPortable, toPortable } from '../../engine/store/portable-batch.js';
import { prepareBatch } from '../../engine/store/prepare.js';

const { values } = parseArgs({ options: { events: { type: 'string', default: '1000000' } } });
const N = Number(values.events);
const PARTITIONS = 4;

// Messages by partition, each partition's in offset order (any hash keeps a case in one partition, which is all that matters here).
const parts: { offset: string; value: Buffer }[][] = Array.from({ length: PARTITIONS }, () => []);
const partitionOf = (key: string) => {
  let h = 0;
  for (let i = 0; i < key.length; i++) h = (h * 31 + key.charCodeAt(i)) | 0;
  return (h >>> 0) % PARTITIONS;
};
let n = 0;
for (const e of simulate({ model: 'order-to-cash', cases: Math.ceil(N / 5), seed: 42 })) {
  const p = parts[partitionOf(String(e.caseId))]!;
  p.push({ offset: String(p.length), value: Buffer.from(JSON.stringify(e)) });
  if (++n === N) break;
}

const map = compileMapping('pcg', {});
const dir = mkdtempSync(join(tmpdir(), 'pcg-bench-stages-'));
const registry = new ProjectRegistry(dir);
const seconds: Record<string, number> = { map: 0, prepare: 0, portable: 0, serialize: 0, deserialize: 0, fromPortable: 0, apply: 0 };
let tick = 0;
const lap = (stage: string) => {
  const now = performance.now();
  seconds[stage]! += (now - tick) / 1000;
  tick = now;
};
const cpu0 = process.cpuUsage();
const wall0 = performance.now();
try {
  // A chunk of each partition in turn, as kafkajs's fetches interleave partitions.
  for (let from = 0; parts.some((p) => p.length > from); from += CHUNK) {
    for (let p = 0; p < PARTITIONS; p++) {
      const chunk = parts[p]!.slice(from, from + CHUNK);
      if (chunk.length === 0) continue;
      tick = performance.now();
      const batch = chunkBatch(map, 'bench', p, chunk);
      lap('map');
      const prepared = prepareBatch(batch, registry.limits);
      lap('prepare');
      const portable = toPortable(prepared);
      lap('portable');
      const bytes = serialize(portable);
      lap('serialize');
      const received = deserialize(bytes) as typeof portable;
      lap('deserialize');
      const events = fromPortable(received);
      lap('fromPortable');
      registry.ingestPart('bench', events, { source: 'bench', partition: p, offset: from + chunk.length - 1 });
      lap('apply');
    }
  }
  const cpu = process.cpuUsage(cpu0);
  const round = (x: number) => +x.toFixed(2);
  const consumer = seconds.map! + seconds.prepare! + seconds.portable! + seconds.serialize!;
  const writer = seconds.deserialize! + seconds.fromPortable! + seconds.apply!;
  console.log(
    JSON.stringify(
      {
        events: N,
        wallS: round((performance.now() - wall0) / 1000),
        cpuS: round((cpu.user + cpu.system) / 1e6),
        stagesS: Object.fromEntries(Object.entries(seconds).map(([k, v]) => [k, round(v)])),
        consumerThreadS: round(consumer),
        writingThreadS: round(writer),
      },
      null,
      2,
    ),
  );
} finally {
  registry.close();
  rmSync(dir, { recursive: true, force: true });
}

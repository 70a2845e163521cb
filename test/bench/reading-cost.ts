/**
 * Document cost on shapes that punish superlinear code (issue 12): a project
 * with 2,000 distinct activities over 10,000 events, and one with 50,000
 * variants (nearly every case its own path). Reports the median build time of
 * the whole document, split into the miner and the reading, against the
 * snapshot read of the same project as the in-run baseline.
 *
 *   node --import tsx test/bench/reading-cost.ts [--runs 5]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildDocument } from '../../engine/document/index.js';
import { ProjectStore, type WireEvent } from '../../engine/index.js';
import { discoverModel } from '../../engine/mining/index.js';
import { median } from './child.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' } } });
const runs = Number(values.runs);

/** A deterministic generator (mulberry32), so every run measures the same project. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function events(cases: number, length: () => number, activity: (i: number, r: () => number) => string, seed: number): WireEvent[] {
  const r = random(seed);
  const out: WireEvent[] = [];
  const start = Date.UTC(2024, 0, 1);
  for (let c = 0; c < cases; c++) {
    const n = length();
    for (let i = 0; i < n; i++) {
      out.push({ caseId: `case ${c}`, activity: activity(i, r), timestamp: new Date(start + c * 60_000 + i * 3_600_000 * (1 + r() * 5)).toISOString(), eventId: `${c}-${i}` });
    }
  }
  return out;
}

const shapes = [
  {
    name: '2,000 activities (10,000 events)',
    make: () => {
      const r = random(1);
      return events(1000, () => 8, (i, rr) => (i === 0 ? 'Start' : `Activity ${Math.floor(rr() * 2000)}`), 2).concat(
        // every activity at least once
        Array.from({ length: 2000 }, (_, k) => ({ caseId: `extra ${k}`, activity: `Activity ${k}`, timestamp: new Date(Date.UTC(2024, 5, 1) + r() * 1e9).toISOString(), eventId: `x${k}` })),
      );
    },
  },
  {
    name: '50,000 variants (50,000 cases)',
    make: () => {
      const r = random(3);
      return events(50_000, () => 8 + Math.floor(r() * 8), (i, rr) => (i === 0 ? 'Register' : `Step ${Math.floor(rr() * 25)}`), 4);
    },
  },
];

const work = mkdtempSync(join(tmpdir(), 'pcg-bench-reading-'));
try {
  for (const shape of shapes) {
    const store = ProjectStore.open(join(work, `${shape.name.replace(/\W+/g, '_')}.sqlite`));
    const all = shape.make();
    for (let i = 0; i < all.length; i += 50_000) store.apply({ records: all.slice(i, i + 50_000) });
    const snapshots: number[] = [];
    const builds: number[] = [];
    const models: number[] = [];
    let doc = buildDocument(store.snapshot());
    for (let k = 0; k < runs; k++) {
      let t = performance.now();
      const snap = store.snapshot();
      snapshots.push(performance.now() - t);
      t = performance.now();
      doc = buildDocument(snap);
      builds.push(performance.now() - t);
      t = performance.now();
      discoverModel(snap.tally.variants);
      models.push(performance.now() - t);
    }
    const b = median(builds);
    const s = median(snapshots);
    console.log(
      JSON.stringify({
        shape: shape.name,
        activities: doc.nodes.length - 2,
        variants: store.snapshot().tally.variants.size,
        buildMs: Math.round(b),
        modelMs: Math.round(median(models)),
        readingAndRestMs: Math.round(b - median(models)),
        snapshotMs: Math.round(s),
        buildOverSnapshot: Math.round((b / s) * 10) / 10,
        goalMet: b < 2000,
      }),
    );
    store.close();
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ProjectStore, type WireEvent } from '../../engine/index.js';
import { groundTruth, simulate } from '../../connectors/simulator/index.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('simulated events in a project store', () => {
  it('are all accepted: 20k events, every case counted, duplicates counted once', () => {
    dir = mkdtempSync(join(tmpdir(), 'pcg-sim-store-'));
    const store = ProjectStore.open(join(dir, 'state.sqlite'));
    try {
      const cases = new Set<string>();
      const ids = new Set<string>();
      let batch: WireEvent[] = [];
      let offset = 0;
      let rejected = 0;
      let duplicates = 0;
      const flush = () => {
        const r = store.apply({ records: batch }, { source: 'simulator', partition: 0, offset: offset++ });
        rejected += r.rejected;
        duplicates += r.duplicates;
        batch = [];
      };
      let n = 0;
      for (const e of simulate({ model: 'order-to-cash', cases: 2000, seed: 21, lateShare: 0.02, duplicateShare: 0.01 })) {
        if (++n > 20_000) break;
        cases.add(e.caseId);
        ids.add(e.eventId!);
        batch.push(e);
        if (batch.length === 1000) flush();
      }
      flush();
      expect(rejected).toBe(0);
      expect(duplicates).toBe(n - 1 - ids.size);
      const { tally } = store.snapshot();
      expect(tally.cases).toBe(cases.size);
      expect(tally.events).toBe(ids.size);
      expect(tally.activities.get(groundTruth('order-to-cash').startActivity)?.cases).toBe(cases.size);
    } finally {
      store.close();
    }
  });
});

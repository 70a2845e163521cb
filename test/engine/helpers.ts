import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { ProjectStore, type StoreOptions } from '../../engine/index.js';

/** A fresh store on a fresh file per call, removed after the test. */
export function freshStore(options: StoreOptions = {}): ProjectStore {
  const dir = mkdtempSync(join(tmpdir(), 'pcg-test-'));
  const store = ProjectStore.open(join(dir, 'state.sqlite'), options);
  afterEach(() => {
    try {
      store.close();
    } catch {
      // already closed by the test
    }
    rmSync(dir, { recursive: true, force: true });
  });
  return store;
}

export function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pcg-test-'));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Items cut into consecutive non-empty batches at the given points (taken modulo the length): random batch splits for property tests. */
export function batchesOf<T>(items: T[], cuts: number[]): T[][] {
  const points = [...new Set(cuts.map((c) => c % (items.length + 1)))].sort((a, b) => a - b);
  const out: T[][] = [];
  let from = 0;
  for (const p of [...points, items.length]) {
    out.push(items.slice(from, p));
    from = p;
  }
  return out.filter((b) => b.length > 0);
}

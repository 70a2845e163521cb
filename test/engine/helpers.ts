import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, onTestFinished } from 'vitest';
import { ProjectStore, type StoreOptions } from '../../engine/index.js';

/** Clean-ups of stores and folders made outside a test (in a beforeAll): run when the test file ends. */
const atFileEnd = new Set<() => void>();
// Registered as this module loads, so in each test file's root suite (every file loads its own copy of it).
afterAll(() => {
  for (const fn of atFileEnd) fn();
  atFileEnd.clear();
});

/**
 * Runs `fn` once the current test ends; made outside a test, once the file ends. Inside a test (a property run)
 * it must be `onTestFinished`: an `afterEach` registered while a test runs only applies to later tests, and one
 * registered in a `beforeAll` never runs, so every property run's files, and those of stores loaded once per
 * suite, were left behind.
 */
function afterTest(fn: () => void): void {
  try {
    onTestFinished(fn);
  } catch {
    atFileEnd.add(fn);
  }
}

/** A fresh store on a fresh file per call, removed after the test. */
export function freshStore(options: StoreOptions = {}): ProjectStore {
  const dir = mkdtempSync(join(tmpdir(), 'pcg-test-'));
  const store = ProjectStore.open(join(dir, 'state.sqlite'), options);
  afterTest(() => {
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
  afterTest(() => rmSync(dir, { recursive: true, force: true }));
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

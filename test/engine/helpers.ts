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

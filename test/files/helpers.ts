import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createGunzip, gzipSync } from 'node:zlib';
import { afterAll, onTestFinished } from 'vitest';
import { ProjectStore, type Rejection, type StoreOptions } from '../../engine/index.js';
import type { LogSource } from '../../connectors/files/index.js';

/**
 * A fresh folder for log files and project state, removed when the test that asked for it ends (or, asked for
 * outside a test, when its suite ends): an afterEach registered from inside a running test never ran.
 */
export function scratch() {
  const dir = mkdtempSync(join(tmpdir(), 'pcg-files-'));
  const stores: ProjectStore[] = [];
  const cleanup = () => {
    for (const s of stores) {
      try {
        s.close();
      } catch {
        // closed by the test
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    onTestFinished(cleanup);
  } catch {
    afterAll(cleanup);
  }
  return {
    dir,
    file(name: string, content: string | Buffer, options: { gzip?: boolean } = {}): string {
      const path = join(dir, name);
      const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
      writeFileSync(path, options.gzip ? gzipSync(bytes) : bytes);
      return path;
    },
    store(name = 'state.sqlite', options: StoreOptions = {}): ProjectStore {
      const s = ProjectStore.open(join(dir, name), options);
      stores.push(s);
      return s;
    },
  };
}

export interface Collected {
  records: Record<string, unknown>[];
  locations: string[];
  rejected: Rejection[];
  batches: number;
}

/** Every record, location and rejection of a source, in order. */
export async function collect(source: LogSource): Promise<Collected> {
  const out: Collected = { records: [], locations: [], rejected: [], batches: 0 };
  for await (const b of source.batches()) {
    out.batches += 1;
    out.records.push(...(b.records as Record<string, unknown>[]));
    out.locations.push(...(b.locations ?? []));
    out.rejected.push(...(b.rejected ?? []));
  }
  return out;
}

export const utc = (text: string) => Date.parse(text);

/** What a streaming gunzip gives of a cut .gz before it fails: the content the reader sees. */
export async function gunzipPrefix(gz: Buffer): Promise<string> {
  const out: Buffer[] = [];
  try {
    for await (const chunk of Readable.from([gz]).pipe(createGunzip())) out.push(chunk as Buffer);
  } catch {
    // the cut
  }
  return Buffer.concat(out).toString('utf8');
}

import { createReadStream, existsSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bytesRead, fileProgress } from '../../api/cli/progress.js';
import { DEFAULT_EVENT_LIMITS, isPrepared } from '../../engine/index.js';
import type { IngestTarget } from '../../engine/projects/index.js';
import { scratchDir } from '../render/helpers.js';

function stream(isTTY: boolean) {
  const written: string[] = [];
  return { isTTY, columns: 100, write: (t: string) => void written.push(t), written };
}

const target = (): IngestTarget & { applied: number } => ({
  applied: 0,
  apply(batch) {
    this.applied += isPrepared(batch) ? batch.records : batch.records.length;
    return { applied: true } as ReturnType<IngestTarget['apply']>;
  },
  setMeta: () => {},
  totals: () => ({ cases: 0, events: 0 }),
  limits: DEFAULT_EVENT_LIMITS,
});

const linux = existsSync('/proc/self/fdinfo');

describe('import progress bar', () => {
  const dir = scratchDir();
  const file = join(dir, 'log.bin');
  writeFileSync(file, Buffer.alloc(4 << 20, 97));

  it('draws nothing when the stream is no terminal', async () => {
    const s = stream(false);
    const p = fileProgress('pcg import', file, s, { delayMs: 0, intervalMs: 5 });
    const t = target();
    p.target(t).apply({ records: [{}, {}] } as never);
    p.tick();
    await new Promise((r) => setTimeout(r, 30));
    p.done();
    expect(s.written).toEqual([]);
    expect(t.applied).toBe(2);
  });

  it.runIf(linux)('shows the bytes read of the file and the events applied, then clears its line', async () => {
    const s = stream(true);
    const p = fileProgress('pcg import', file, s, { delayMs: 0, intervalMs: 60_000 });
    const t = p.target(target());
    t.apply({ records: new Array(7).fill({}) } as never);
    const reader = createReadStream(file, { highWaterMark: 1 << 20 });
    const chunks = reader[Symbol.asyncIterator]();
    await chunks.next(); // 1 MiB read, the stream holds the file open
    expect(bytesRead(file)).toBeGreaterThanOrEqual(1 << 20);
    p.tick();
    const line = s.written.at(-1)!;
    expect(line.startsWith('\r\x1b[Kpcg import: log.bin [')).toBe(true);
    expect(line).toMatch(/\] (2[5-9]|[3-9]\d|100)% \d+\.\d\/4\.2 MB 7 events$/);
    expect(line.length - 4).toBeLessThanOrEqual(99);
    reader.destroy();
    await once(reader, 'close');
    p.done();
    expect(s.written.at(-1)).toBe('\r\x1b[K');
    const count = s.written.length;
    p.tick();
    p.done();
    expect(s.written).toHaveLength(count);
  });

  it('waits before the first draw, so short imports show no bar', () => {
    const s = stream(true);
    const p = fileProgress('pcg import', file, s, { delayMs: 60_000, intervalMs: 60_000 });
    p.tick();
    p.done();
    expect(s.written).toEqual([]);
  });
});

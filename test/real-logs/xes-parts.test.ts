import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeSource, importLog, openLog } from '../../connectors/files/index.js';
import { buildDocument } from '../../engine/document/index.js';
import { DEFAULT_EVENT_LIMITS } from '../../engine/index.js';
import { MemoryProject } from '../../engine/store/memory-project.js';
import { realLogs } from '../tools/pm4py.js';
import { isXes, manifestLogs } from './manifest.js';

/**
 * Every XES log of the PCG_REAL_LOGS folder read in parts on two threads
 * (connectors/files/xes-parts.ts, what `pcg graph FILE` does with a large
 * one), cut into runs of 16 KB so that even the small ones are split: each
 * reads in parts (none needs the fallback) and gives the document of reading
 * it whole, byte for byte.
 */
describe.skipIf(!realLogs)('real XES logs read in parts', () => {
  it.each(manifestLogs().filter(isXes).map((r) => r.file))('%s', async (name) => {
    const path = join(realLogs!, name);
    const whole = new MemoryProject();
    await importLog(whole, path, {}, { thread: false });
    const source = await openLog(path);
    const read = await source.readInParts!(DEFAULT_EVENT_LIMITS, { runBytes: 16 << 10 });
    expect(read !== undefined, 'read in parts').toBe(true);
    const project = new MemoryProject();
    describeSource(project, source, {});
    const parts = JSON.stringify(buildDocument(project.snapshotWith(read!.parts, read!.dataVersion)));
    expect(parts === JSON.stringify(buildDocument(whole.snapshot())), 'the same document').toBe(true);
  }, 120_000);
});

import { DEFAULT_EVENT_LIMITS } from '../../engine/index.js';
import { MemoryProject } from '../../engine/store/memory-project.js';
import type { ProjectSnapshot } from '../../engine/store/types.js';
import { describeSource, importSource, openLog } from './index.js';
import { worthAThread } from './reader-thread.js';
import type { ImportOptions } from './types.js';

/** A log read into memory, and how: in parts on two threads, or whole on this one. */
export interface MemoryReading {
  snapshot: ProjectSnapshot;
  read: 'parts' | 'whole';
  /** The first records refused (where and why), when the file was read whole; `snapshot.rejected` counts them all. */
  rejections: { location: string; reason: string }[];
}

/**
 * A log read into memory for one document (`pcg graph FILE`): no SQLite file,
 * the snapshot a stored project fed the same file has. A XES file of
 * THREAD_MIN_BYTES or more is read on two threads (xes-parts.ts); any other
 * file, or a XES log that cannot be read in parts exactly, is read whole on
 * this thread (a reader thread would only add the copying of every event
 * between threads: BPIC 2012 read 3.3 s so, 4.1 s through one). The file is
 * opened once either way (opening reads it through for its digest).
 */
export async function readLogInMemory(path: string, options: ImportOptions = {}, run: { onItems?: (items: number) => void } = {}): Promise<MemoryReading> {
  const limits = DEFAULT_EVENT_LIMITS;
  const source = await openLog(path, options);
  if (source.readInParts && worthAThread(path)) {
    // Any failure in parts (an unknown classifier, a thread that dies) is met again, and reported, by the whole reading.
    const parts = await source.readInParts(limits, { onItems: run.onItems }).catch(() => undefined);
    if (parts) {
      const project = new MemoryProject(limits);
      describeSource(project, source, options);
      return { snapshot: project.snapshotWith(parts.parts, parts.dataVersion), read: 'parts', rejections: [] };
    }
  }
  const project = new MemoryProject(limits);
  let items = 0;
  const target = {
    apply: (...args: Parameters<MemoryProject['apply']>) => {
      const result = project.apply(...args);
      items += result.accepted + result.duplicates + result.rejected;
      run.onItems?.(items);
      return result;
    },
    setMeta: (key: string, value: string) => project.setMeta(key, value),
    totals: () => project.totals(),
    limits,
  };
  const summary = await importSource(target, source, options);
  return { snapshot: project.snapshot(), read: 'whole', rejections: summary.rejections };
}

import { parentPort, Worker, workerData } from 'node:worker_threads';
import { ProjectStore } from '../engine/index.js';
import type { RetractResult } from '../engine/store/project-store.js';
import type { SourceRetractor } from '../engine/projects/index.js';
import { fromWire, toWire, type ThreadOutcome } from './thread-errors.js';

/**
 * Taking a deleted dataset's events back (ProjectStore.retractSource) on a
 * thread of its own: one transaction whose cost grows with the dataset (about
 * 15 s for a million events), which on the request loop held every tenant's
 * requests. The registry refuses the project's writes meanwhile
 * (ProjectRegistry.retractElsewhere). A thread per retraction, not the build
 * pool: a long one would otherwise hold every tenant's document builds, and
 * it is never cut short by a time budget (its transaction commits or rolls
 * back whole).
 */
export const retractOnThread: SourceRetractor = (file, source) =>
  new Promise<RetractResult>((resolve, reject) => {
    const worker = new Worker(new URL('./workers/retract.mjs', import.meta.url), { workerData: { file, source } });
    let answered = false;
    worker.once('message', (m: ThreadOutcome<RetractResult>) => {
      answered = true;
      // The error in the class the boundary maps (a busy file is a 503, as on the loop).
      if ('ok' in m) resolve(m.ok);
      else reject(fromWire(m.error));
    });
    worker.once('error', (error) => {
      answered = true;
      reject(error);
    });
    worker.once('exit', (code) => {
      if (!answered) reject(new Error(`the retraction thread exited with code ${code}`));
    });
  });

/** On the thread: opens the file, retracts, closes (merging what is pending), answers once. */
export function runRetraction(): void {
  const { file, source } = workerData as { file: string; source: string };
  try {
    const store = ProjectStore.open(file);
    try {
      parentPort!.postMessage({ ok: store.retractSource(source) } satisfies ThreadOutcome<RetractResult>);
    } finally {
      store.close();
    }
  } catch (error) {
    parentPort!.postMessage({ error: toWire(error) } satisfies ThreadOutcome<RetractResult>);
  }
}

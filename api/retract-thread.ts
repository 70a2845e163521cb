import { parentPort, Worker, workerData } from 'node:worker_threads';
import { ProjectStore } from '../engine/index.js';
import type { RetractResult } from '../engine/store/project-store.js';
import type { SourceRetractor } from '../engine/projects/index.js';

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
    worker.once('message', (m: { result?: RetractResult; error?: { message: string; code?: string } }) => {
      answered = true;
      if (m.result) resolve(m.result);
      else reject(Object.assign(new Error(m.error?.message ?? 'the retraction failed'), { code: m.error?.code }));
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
      parentPort!.postMessage({ result: store.retractSource(source) });
    } finally {
      store.close();
    }
  } catch (error) {
    const e = error as Error & { code?: string };
    parentPort!.postMessage({ error: { message: e.message, ...(typeof e.code === 'string' ? { code: e.code } : {}) } });
  }
}

import { toWire, type ThreadOutcome } from '../../engine/error-base.js';
import { checkLog, type LogCheck } from './index.js';
import type { ReadLimits } from './limits.js';
import type { ImportOptions } from './types.js';

/** What checking an upload is handed: its staged file, the import options and the bounds on reading it. */
export interface CheckTask {
  path: string;
  options: ImportOptions;
  limits: ReadLimits;
}

/**
 * How a check ends, as it crosses back from a thread: error classes do not survive the crossing by themselves, so a
 * refusal travels in the one wire form (engine/error-base.ts) and comes back as its class (a FileImportError).
 */
export type CheckOutcome = ThreadOutcome<LogCheck>;

/**
 * Checks an upload: the file read whole once, nothing stored (checkLog). The entry point of a check thread
 * (api/workers/check-upload.mjs), a plain function of its input and a signal so that any thread pool or scheduler
 * can run it; `signal` stops it between chunks when it runs where it cannot be terminated.
 */
export async function checkTask(task: CheckTask, signal?: AbortSignal): Promise<CheckOutcome> {
  try {
    return { ok: await checkLog(task.path, task.options, task.limits, signal) };
  } catch (error) {
    return { error: toWire(error) };
  }
}

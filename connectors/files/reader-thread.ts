import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { MessageChannel, Worker, workerData, type MessagePort } from 'node:worker_threads';
import { fromPortable, INGEST_HEAP, prepareBatch, toPortable, type PortableBatch, type PreparedBatch } from '../../engine/index.js';
import { fromWire, toWire, type WireError } from '../../engine/error-base.js';
import { FileImportError } from './errors.js';
import { INPUT_LIMIT_NAMES, type ReadLimits } from './limits.js';
import type { ImportOptions, LogSource } from './types.js';

/**
 * Reading a log on a thread of its own. Reading (decompressing, parsing, the
 * XES or CSV mapping) and preparing batches (validation, the event digest,
 * the stored body: `prepareBatch`) depend on nothing stored, so a second
 * thread does them while the caller's thread writes the batch before into
 * the store: on two cores an import runs its two halves side by side.
 *
 * The thread runs at most AHEAD batches ahead of the writer (each is a few
 * MB), so a slow store holds the reader instead of filling memory. Batches,
 * their order and their positions are those of `openLog` on the same file.
 */

/** Files below this size are read on the caller's thread: starting a thread (and its TypeScript loader) costs more. */
export const THREAD_MIN_BYTES = 8 << 20;
/** Prepared batches the reader may have sent that the writer has not taken yet. */
const AHEAD = 3;

/** What the thread says first: the facts openLog knows before any batch. */
type Facts = Pick<LogSource, 'format' | 'caseNotion' | 'caseNotionReason' | 'eventsWithoutCase' | 'objectTypeActivities' | 'lifecycle' | 'sourceId'>;

type FromReader =
  | { type: 'open'; facts: Facts }
  | { type: 'batch'; batch: PortableBatch }
  | { type: 'end' }
  /** The reading's error in the one wire form: it comes back as the class openLog threw (a FileImportError). */
  | { type: 'error'; error: WireError };

/** A log being read on a thread: its facts, then its batches already prepared under the given limits. */
export interface PreparedLog extends Facts {
  batches(): AsyncGenerator<PreparedBatch>;
}

/** Whether `path` is worth a reader thread: THREAD_MIN_BYTES or more of content (a gzip file's as its trailer gives it). */
export function worthAThread(path: string): boolean {
  try {
    const size = statSync(path).size;
    if (size >= THREAD_MIN_BYTES) return true;
    // A cut .gz ends in arbitrary bytes: a stated size beyond deflate's best ratio (about 1032:1) is not believed.
    const stated = size >= 18 ? gzippedSize(path) : 0;
    return stated >= THREAD_MIN_BYTES && stated <= size * 1032;
  } catch {
    return false;
  }
}

/** The uncompressed size a gzip file states in its last four bytes (modulo 2^32), or 0 for any other file. */
function gzippedSize(path: string): number {
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(2);
    readSync(fd, head, 0, 2, 0);
    if (head[0] !== 0x1f || head[1] !== 0x8b) return 0;
    const tail = Buffer.alloc(4);
    readSync(fd, tail, 0, 4, fstatSync(fd).size - 4);
    return tail.readUInt32LE(0);
  } finally {
    closeSync(fd);
  }
}

/**
 * Opens `path` on a reader thread; rejects as openLog would (a FileImportError with its code) when the file cannot be
 * read. The thread's heap is held to `limits.heapMiB` (a thread past it dies, and the read fails naming the limit);
 * `signal` ends the thread at once, wherever it is (an OCEL file is read whole before its first batch), and the read
 * fails with the signal's reason.
 */
export async function openLogOnThread(path: string, options: ImportOptions, limits: ReadLimits, signal?: AbortSignal): Promise<PreparedLog> {
  signal?.throwIfAborted();
  const { port1: port, port2 } = new MessageChannel();
  const worker = new Worker(new URL('./reader-thread.mjs', import.meta.url), {
    workerData: { path, options, limits: { ...limits }, port: port2 },
    transferList: [port2],
    resourceLimits: { ...INGEST_HEAP, maxOldGenerationSizeMb: limits.heapMiB },
  });
  // A queue of what the thread sent, and whoever waits for the next message.
  const queue: FromReader[] = [];
  let wake: (() => void) | undefined;
  let failure: Error | undefined;
  const push = (m: FromReader) => {
    queue.push(m);
    wake?.();
  };
  port.on('message', push);
  worker.on('error', (error) => {
    failure = (error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY' ? outOfHeap(limits.heapMiB) : error;
    wake?.();
  });
  worker.on('exit', (code) => {
    if (code !== 0) failure ??= new Error(`the reader thread exited with code ${code}`);
    wake?.();
  });
  const next = async (): Promise<FromReader> => {
    for (;;) {
      const m = queue.shift();
      if (m) return m;
      if (failure) throw failure;
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
  };
  const stop = () => {
    signal?.removeEventListener('abort', onAbort);
    port.close();
    void worker.terminate();
  };
  const onAbort = () => {
    failure ??= signal!.reason as Error;
    stop();
    wake?.();
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  const opened = await next().catch((error: unknown) => {
    stop();
    throw error;
  });
  if (opened.type !== 'open') {
    stop();
    throw readerError(opened);
  }
  return {
    ...opened.facts,
    async *batches() {
      try {
        for (;;) {
          const m = await next();
          if (m.type === 'end') return;
          if (m.type !== 'batch') throw readerError(m);
          port.postMessage('more');
          yield fromPortable(m.batch);
        }
      } finally {
        stop();
      }
    },
  };
}

/** A reading thread that ran out of heap: the file needs more than PCG_READ_HEAP_MIB to read. */
export const outOfHeap = (mib: number): FileImportError =>
  new FileImportError('limit_exceeded', `limit ${INPUT_LIMIT_NAMES.heapMiB}: reading the file needs more than ${mib} MiB of heap`);

function readerError(m: FromReader): Error {
  if (m.type === 'error') return fromWire(m.error);
  return new Error(`the reader thread sent ${m.type} out of turn`);
}

/** The thread's side (reader-thread.mjs calls it): reads the log, prepares each batch, sends it when the writer has room. */
export async function runReader(): Promise<void> {
  const { path, options, limits, port } = workerData as { path: string; options: ImportOptions; limits: ReadLimits; port: MessagePort };
  let credit = AHEAD;
  let wake: (() => void) | undefined;
  port.on('message', () => {
    credit += 1;
    wake?.();
  });
  const send = (m: FromReader) => port.postMessage(m);
  try {
    const { openLog } = await import('./index.js');
    const source = await openLog(path, options, limits);
    send({ type: 'open', facts: { format: source.format, caseNotion: source.caseNotion, caseNotionReason: source.caseNotionReason, eventsWithoutCase: source.eventsWithoutCase, objectTypeActivities: source.objectTypeActivities, lifecycle: source.lifecycle, sourceId: source.sourceId } });
    for await (const batch of source.batches()) {
      const prepared = prepareBatch(batch, limits);
      while (credit === 0) await new Promise<void>((resolve) => (wake = resolve));
      credit -= 1;
      send({ type: 'batch', batch: toPortable(prepared) });
    }
    send({ type: 'end' });
  } catch (error) {
    send({ type: 'error', error: toWire(error) });
  } finally {
    // Not closed: what was sent still has to arrive. Unreferenced, the port lets the thread end (the writer ends it too).
    port.unref();
  }
}

import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import type { EventLimits } from '../../engine/index.js';
import { fromWire } from '../../engine/error-base.js';
import type { MemoryPart } from '../../engine/store/memory-project.js';
import { batchSizeOf } from './batcher.js';
import type { Input } from './input.js';
import type { ImportOptions } from './types.js';
import { XesPart, type FromPart, type RunReport, type ToPart, type XesPartSetup, type XesRun } from './xes-part.js';
import { XesSegmenter, type XesSegment } from './xes-segments.js';

/**
 * A XES log read into memory on two threads (`pcg graph FILE`): this thread
 * decompresses the file and cuts it into runs of whole traces (xes-segments.ts);
 * a second thread and this one each read some of the runs and fold their
 * cases (xes-part.ts); the two parts then make one snapshot
 * (MemoryProject.snapshotWith). Reading, validation and the fold, nearly all of
 * a one-shot document's time, so run on both cores.
 *
 * The result is the snapshot of reading the file whole, byte for byte, because
 * every counter is a sum over cases and each trace is read with the numbers
 * it has in the file. Where that could fail, the log is read whole instead
 * (the answer is undefined): the cut's tag counts disagree with what was parsed
 * (a comment holding `<event`), the XML breaks or ends early (the damage report
 * is the whole reading's), a header element comes after a trace, or one case id
 * names traces read on both threads. Reading whole is what the result is tested
 * against (test/files/xes-parts.test.ts).
 *
 * The data version is the whole reading's: a XES log's event ids are ordinals,
 * so no record is a duplicate, every batch changes the state, and the batches
 * are the items (records and rejections) cut into batchSize.
 */

/** Bytes of content per run: small enough that the two threads end close together and that a run's events die young (1 MB runs outlived V8's young generation: more GC, 0.2-0.4 s slower on BPIC 2012), large enough to cost nothing per run. */
const RUN_BYTES = 1 << 18;
/** Runs sent to the thread and not yet answered: it never waits while this thread reads a run of its own. */
const THREAD_QUEUE = 3;

export interface XesInParts {
  /** The two threads' parts: a MemoryProject given the log's meta takes snapshotWith(parts, dataVersion). */
  parts: MemoryPart[];
  dataVersion: number;
}

/** How a reading in parts goes: told the items read as it goes; `runBytes` (default RUN_BYTES) is for tests. */
export interface PartsRun {
  onItems?: (items: number) => void;
  runBytes?: number;
}

export async function readXesInParts(input: Input, options: ImportOptions, idPrefix: string, limits: EventLimits, run: PartsRun = {}): Promise<XesInParts | undefined> {
  const thread = new PartThread();
  try {
    return await read(thread, input, options, idPrefix, limits, run);
  } finally {
    thread.stop();
  }
}

async function read(thread: PartThread, input: Input, options: ImportOptions, idPrefix: string, limits: EventLimits, { onItems, runBytes = RUN_BYTES }: PartsRun): Promise<XesInParts | undefined> {
  const segmenter = new XesSegmenter(runBytes);
  let mine: XesPart | undefined;
  let traces = 0;
  let events = 0;
  let items = 0;
  let whole = true;
  const check = (report: RunReport, cut: XesSegment) => {
    if (!report.ok || report.traces !== cut.traces || report.events !== cut.events) whole = false;
    items += report.items;
    onItems?.(items);
  };
  thread.onReport = check;
  const dispatch = (cut: XesSegment) => {
    if (!mine) {
      const setup: XesPartSetup = { path: input.path, header: segmenter.header!, options, idPrefix, limits };
      // The thread first: it reads the header (6.6 MB in BPIC 2012) while this thread does the same.
      thread.start(setup);
      mine = new XesPart(setup);
    }
    const run: XesRun = { bytes: cut.bytes, firstTrace: traces, firstEvent: events, last: cut.last };
    traces += cut.traces;
    events += cut.events;
    if (thread.waiting < THREAD_QUEUE && !thread.failed) thread.send(run, cut);
    else check(mine.read(run), cut);
  };
  for await (const chunk of input.chunks()) {
    for (const cut of segmenter.push(chunk)) dispatch(cut);
    if (segmenter.unsplittable || !whole || thread.failed) return undefined;
  }
  for (const cut of segmenter.end()) dispatch(cut);
  if (!mine || input.truncated) return undefined;
  const theirs = thread.finish();
  const own = mine.finish();
  const other = await theirs;
  if (!other || !whole) return undefined;
  const ids = new Set(own.caseIds);
  if (other.caseIds.some((id) => ids.has(id))) return undefined;
  return { parts: [own, other], dataVersion: Math.ceil(items / batchSizeOf(options.batchSize)) };
}

/** The second thread, from this side: runs sent and their reports in order, and its part at the end. */
class PartThread {
  onReport: (report: RunReport, cut: XesSegment) => void = () => {};
  failed = false;
  /** What the thread threw, in its class (the reading falls back to one thread, which throws it again if it is the file's). */
  error: Error | undefined;
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly sent: XesSegment[] = [];
  private settle: ((part: MemoryPart | undefined) => void) | undefined;

  constructor() {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.worker = new Worker(new URL('./xes-part-thread.mjs', import.meta.url), { workerData: { port: port2 }, transferList: [port2] });
    this.worker.on('error', () => this.fail());
    this.worker.on('exit', () => this.fail());
    this.port.on('message', (m: FromPart) => {
      if (m.type === 'read') this.onReport(m.report, this.sent.shift()!);
      else if (m.type === 'part') this.settle?.(m.part);
      else {
        this.error = fromWire(m.error);
        this.fail();
      }
    });
    // It waits for runs until stopped; this thread's exit does not wait for it.
    this.worker.unref();
  }

  /** Runs sent and not yet answered. */
  get waiting(): number {
    return this.sent.length;
  }

  start(setup: XesPartSetup): void {
    this.post({ type: 'start', setup });
  }

  send(run: XesRun, cut: XesSegment): void {
    this.sent.push(cut);
    this.post({ type: 'run', run });
  }

  /** Its part, once every run sent is read and its cases folded; undefined when it failed. */
  finish(): Promise<MemoryPart | undefined> {
    if (this.failed) return Promise.resolve(undefined);
    const part = new Promise<MemoryPart | undefined>((resolve) => (this.settle = resolve));
    this.post({ type: 'finish' });
    return part;
  }

  stop(): void {
    this.port.close();
    void this.worker.terminate();
  }

  private post(m: ToPart): void {
    this.port.postMessage(m);
  }

  private fail(): void {
    this.failed = true;
    this.settle?.(undefined);
  }
}

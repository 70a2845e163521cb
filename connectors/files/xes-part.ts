import { workerData, type MessagePort } from 'node:worker_threads';
import type { EventLimits } from '../../engine/index.js';
import { FoldedPart } from '../../engine/store/folded-part.js';
import type { MemoryPart } from '../../engine/store/memory-project.js';
import type { ImportOptions } from './types.js';
import { XesReader, xesOptionsOf, type XesFacts } from './xes.js';
import { toWire, type WireError } from '../../engine/error-base.js';
import { XmlError } from './xml-tokenizer.js';
import { noPairing } from './lifecycle.js';

/** What both threads' parts are made with. */
export interface XesPartSetup {
  path: string;
  /** The content before the first trace. */
  header: Uint8Array;
  options: ImportOptions;
  /** The prefix of the file's ordinal event ids (its source id's). */
  idPrefix: string;
  limits: EventLimits;
}

/** A run of traces and where it stands: the traces and events before it in the file. */
export interface XesRun {
  bytes: Uint8Array;
  firstTrace: number;
  firstEvent: number;
  /** The last run, with the end of the file. */
  last: boolean;
}

/** What reading a run found: traces and events met (to check against the cut's counts) and items (records and rejections). */
export interface RunReport {
  traces: number;
  events: number;
  items: number;
  /** False when the run did not read as whole traces (broken XML, a late header element, bytes left over): read the log whole. */
  ok: boolean;
}

const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/**
 * The traces one thread reads of a XES log read in parts (xes-parts.ts):
 * the header once, then the runs of traces it is given, each numbered from
 * where it stands in the file. A run holds whole traces, so its cases are
 * folded as soon as it is read (FoldedPart) and its events let go. Both
 * threads run this, so the two halves are read by the same code.
 */
export class XesPart {
  private readonly folded: FoldedPart;
  private readonly reader: XesReader;
  private readonly facts: XesFacts = { classifiers: {}, filtered: 0, pairing: noPairing() };
  private broken = false;

  constructor(setup: XesPartSetup) {
    this.folded = new FoldedPart(setup.limits);
    const header = asBuffer(setup.header);
    this.reader = new XesReader(setup.path, header, xesOptionsOf(setup.options, setup.idPrefix), this.facts);
    try {
      this.reader.write(header);
    } catch (error) {
      if (!(error instanceof XmlError)) throw error;
      this.broken = true;
    }
  }

  /** Reads one run into the project. A FileImportError (an unknown classifier) is thrown as reading the file whole would. */
  read(run: XesRun): RunReport {
    const reader = this.reader;
    if (this.broken) return { traces: 0, events: 0, items: 0, ok: false };
    reader.numberFrom(run.firstTrace, run.firstEvent);
    try {
      reader.write(asBuffer(run.bytes));
      if (run.last) reader.end();
    } catch (error) {
      if (!(error instanceof XmlError)) throw error;
      this.broken = true;
    }
    const batches = reader.flush();
    let items = 0;
    for (const batch of batches) items += batch.records.length + (batch.rejected?.length ?? 0);
    // Whole traces only (a run ends between traces, which betweenTraces confirms), so whole cases.
    const whole = run.last || reader.betweenTraces();
    if (whole) this.folded.addCases(batches);
    return { traces: reader.traces - run.firstTrace, events: reader.eventsMet - run.firstEvent, items, ok: whole && !this.broken && !this.facts.lateHeader && this.folded.exact };
  }

  /** The part read. */
  finish(): MemoryPart {
    return this.folded.part();
  }
}

/** Messages to a part thread (its workerData is the port): its setup first, then its runs, then finish. */
export type ToPart = { type: 'start'; setup: XesPartSetup } | { type: 'run'; run: XesRun } | { type: 'finish' };
export type FromPart = { type: 'read'; report: RunReport } | { type: 'part'; part: MemoryPart } | { type: 'error'; error: WireError };

/**
 * The thread's side (xes-part-thread.mjs): reads the runs it is sent in order, answering each; on `finish`
 * sends its part. It starts before the header is known (the setup comes first by message), so its start-up
 * overlaps the reading of the header.
 */
export function runPartThread(): void {
  const { port } = workerData as { port: MessagePort };
  const send = (m: FromPart) => port.postMessage(m);
  let part: XesPart | undefined;
  port.on('message', (m: ToPart) => {
    try {
      if (m.type === 'start') part = new XesPart(m.setup);
      else if (!part) throw new Error(`${m.type} before start`);
      else if (m.type === 'run') send({ type: 'read', report: part.read(m.run) });
      else send({ type: 'part', part: part.finish() });
    } catch (error) {
      send({ type: 'error', error: toWire(error) });
    }
  });
}

import { DEFAULT_EVENT_LIMITS, type EventLimits } from '../../engine/index.js';

/**
 * Bounds on reading one file, beside the event limits its events meet: what
 * a log may cost to read, whatever its bytes say. Each refusal names its
 * setting (the API's configuration, api/config.ts; the file commands that run
 * without a server hold files to the defaults), and a file over one fails
 * whole, applying nothing (a dataset upload is refused before any batch).
 */
export interface InputLimits {
  /**
   * UTF-8 bytes of one line of NDJSON, one CSV record (its quoted line ends included) or one XML token of XES (a tag,
   * a run of text). The readers hold an unfinished line until its end: this bounds what they hold and rescan.
   */
  readonly lineBytes: number;
  /** Bytes of content a file may decompress to (a plain file's content is its bytes). */
  readonly decompressedBytes: number;
  /**
   * Content bytes per compressed byte a gzip file may reach once it is past RATIO_FLOOR_BYTES of content (0: no
   * bound). Real logs gzip 9–53 to 1 (BPIC and 4TU logs, servicenow, road traffic fines); newlines, a bomb's
   * content, about 1000 to 1.
   */
  readonly decompressedRatio: number;
  /**
   * Event-to-object relations of an OCEL log once flattened: each event it makes counts its objects, so an OCEL
   * event in k cases counts them k times. What an OCEL import costs grows with this (every reference is checked,
   * digested, stored and counted), not with the file's size: 600 events of 600 objects each (28.7 MB) flatten to
   * 216 million.
   */
  readonly ocelRelations: number;
  /** MiB of old-generation heap of a thread that reads a file (an upload's check, an import's reader). */
  readonly heapMiB: number;
}

/** A file's reading bounds and its events' together: what a reader is handed. */
export type ReadLimits = InputLimits & EventLimits;

/** Past this much content, a gzip file's ratio is held to decompressedRatio (small files may compress far better). */
export const RATIO_FLOOR_BYTES = 64 * 2 ** 20;

export const DEFAULT_INPUT_LIMITS: InputLimits = Object.freeze({
  lineBytes: 2 ** 20,
  decompressedBytes: 8 * 2 ** 30,
  decompressedRatio: 200,
  ocelRelations: 20_000_000,
  heapMiB: 2048,
});

export const DEFAULT_READ_LIMITS: ReadLimits = Object.freeze({ ...DEFAULT_EVENT_LIMITS, ...DEFAULT_INPUT_LIMITS });

/** The setting of each bound (named in every refusal). */
export const INPUT_LIMIT_NAMES: Readonly<Record<keyof InputLimits, string>> = Object.freeze({
  lineBytes: 'PCG_LINE_LIMIT_BYTES',
  decompressedBytes: 'PCG_DECOMPRESSED_LIMIT_BYTES',
  decompressedRatio: 'PCG_DECOMPRESSED_RATIO_LIMIT',
  ocelRelations: 'PCG_LIMIT_OCEL_RELATIONS',
  heapMiB: 'PCG_READ_HEAP_MIB',
});

/** Read limits with the defaults filled in, frozen. */
export function readLimits(given: Partial<ReadLimits> = {}): ReadLimits {
  const limits: Record<string, number> = { ...DEFAULT_READ_LIMITS };
  for (const [key, value] of Object.entries(given)) if (value !== undefined) limits[key] = value;
  return Object.freeze(limits) as unknown as ReadLimits;
}

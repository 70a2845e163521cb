import type { ReadingTraits } from '../../engine/reading/traits.js';
import { FileImportError } from './errors.js';
import type { OpenContext } from './sources.js';
import type { LogSource } from './types.js';

/**
 * The input formats: one row per format, and everything that lists formats derives from here (the
 * option's zod enum, the CLI's --input-format, the upload route, detection, the opener, inspection and
 * what the document is told about the reading). Adding a format is its reader and one row
 * (docs/architecture.md, "Adding an input format"); test/files/formats.test.ts holds that.
 */
export interface InputFormat {
  /** The kind of log as users name it, in messages ("not XES, CSV, NDJSON or OCEL"). */
  kind: string;
  /** One line for help texts. */
  summary: string;
  detect: Detection;
  /**
   * Opens the file as a stream of batches (called with the input opened once and the options checked). Readers are
   * imported when first opened: the command line lists the formats without loading them.
   */
  open(ctx: OpenContext): LogSource | Promise<LogSource>;
  traits: FormatTraits;
}

/**
 * How a format is recognised from the content, never the name. The content's first bytes put it in a family
 * (the SQLite magic, `<`, `{`, anything else that is text); within the family the rows with a `test` are
 * asked first, in the table's order, and the row without one takes what none of them claims.
 */
export interface Detection {
  family: 'sqlite' | 'markup' | 'json' | 'text';
  test?(head: Buffer, path: string): Promise<boolean>;
}

/** What the reader tells the rest about its records, so nothing outside this table tests a format by name. */
export interface FormatTraits extends ReadingTraits {
  /** A case's events come together (a XES trace): inspection counts its variant when the case closes. */
  casesTogether: boolean;
  /** The records are as written in the file, not built by the reader: inspection gives them the engine's full check and drops repeated keys. */
  rawRecords: boolean;
  /** Read whole at open in one synchronous call: an upload's import reads it on a reader thread whatever its size. */
  readWhole: boolean;
}

interface OcelModule {
  openOcel(path: string, options: OpenContext['options'], limits: OpenContext['limits']): Promise<LogSource>;
  detectOcel(head: Buffer, path: string): string | undefined;
}

let ocelLoad: Promise<OcelModule | undefined> | undefined;

/** The OCEL readers are a separate folder, loaded on first use; without them, OCEL files are refused with a code. */
function ocelModule(): Promise<OcelModule | undefined> {
  return (ocelLoad ??= import('./ocel/index.js').then(
    (m) => m as unknown as OcelModule,
    (error: unknown) => {
      if (/Cannot find module|ERR_MODULE_NOT_FOUND|Failed to load/.test(String(error))) return undefined;
      throw error;
    },
  ));
}

/** Whether the head is this OCEL form. Only content that may be OCEL loads the readers: `pcg inspect` of a CSV or XES file starts quicker. */
const ocelForm = (form: string) => async (head: Buffer, path: string) => {
  if (!mayBeOcelHead(head)) return false;
  return (await ocelModule())?.detectOcel(head, path) === form;
};

const SQLITE_MAGIC = 'SQLite format 3\u0000';

/** SQLite, JSON, and XML that is not plainly XES can be OCEL. */
function mayBeOcelHead(head: Buffer): boolean {
  if (head.subarray(0, SQLITE_MAGIC.length).toString('latin1') === SQLITE_MAGIC) return true;
  const text = head.subarray(0, 4096).toString('utf8').replace(/^\uFEFF/, '').trimStart();
  if (text.startsWith('{')) return true;
  return text.startsWith('<') && !/xes\.version|<trace[\s>]/.test(head.toString('utf8'));
}

async function openOcel(ctx: OpenContext): Promise<LogSource> {
  const ocel = await ocelModule();
  if (!ocel) throw new FileImportError('format_unavailable', `${ctx.path} is ${ctx.options.format}, but the OCEL readers are not installed`);
  return ocel.openOcel(ctx.path, ctx.options, ctx.limits);
}

const streamedTraits = { objectCentric: false, readWhole: false } as const;
/** OCEL is read whole and flattened: every record is a wire event as the reader made it, whose keys may repeat. */
const ocelTraits: FormatTraits = { zonelessTimes: true, objectCentric: true, casesTogether: false, rawRecords: true, readWhole: true };

// The order is the order of help texts and of the enum in the OpenAPI document.
export const inputFormats = {
  xes: {
    kind: 'XES',
    summary: 'XES (IEEE 1849), plain or gzip',
    detect: { family: 'markup' },
    open: async (ctx) => (await import('./sources.js')).openXes(ctx),
    traits: { ...streamedTraits, zonelessTimes: true, casesTogether: true, rawRecords: false },
  },
  csv: {
    kind: 'CSV',
    summary: 'CSV with a header; delimiter and columns found',
    detect: { family: 'text' },
    open: async (ctx) => (await import('./sources.js')).openCsv(ctx),
    traits: { ...streamedTraits, zonelessTimes: true, casesTogether: false, rawRecords: false },
  },
  ndjson: {
    kind: 'NDJSON',
    summary: 'one wire event (JSON) per line',
    detect: { family: 'json' },
    open: async (ctx) => (await import('./sources.js')).openNdjson(ctx),
    // Wire events carry their zone (the event schema asks for one), so no zone is assumed.
    traits: { ...streamedTraits, zonelessTimes: false, casesTogether: false, rawRecords: true },
  },
  'ocel2-json': { kind: 'OCEL', summary: 'OCEL 2.0 JSON', detect: { family: 'json', test: ocelForm('ocel2-json') }, open: openOcel, traits: ocelTraits },
  'ocel2-xml': { kind: 'OCEL', summary: 'OCEL 2.0 XML', detect: { family: 'markup', test: ocelForm('ocel2-xml') }, open: openOcel, traits: ocelTraits },
  'ocel2-sqlite': { kind: 'OCEL', summary: 'OCEL 2.0 SQLite', detect: { family: 'sqlite', test: ocelForm('ocel2-sqlite') }, open: openOcel, traits: ocelTraits },
  'ocel1-json': { kind: 'OCEL', summary: 'OCEL 1.0 JSON', detect: { family: 'json', test: ocelForm('ocel1-json') }, open: openOcel, traits: ocelTraits },
  'ocel1-xml': { kind: 'OCEL', summary: 'OCEL 1.0 XML', detect: { family: 'markup', test: ocelForm('ocel1-xml') }, open: openOcel, traits: ocelTraits },
} satisfies Record<string, InputFormat>;

export type FormatName = keyof typeof inputFormats;

/** The names, in the table's order, as zod's enum takes them. */
export const FORMAT_NAMES = Object.keys(inputFormats) as [FormatName, ...FormatName[]];

export const formatRow = (name: FormatName): InputFormat => inputFormats[name];

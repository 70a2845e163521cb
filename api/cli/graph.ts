import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import type { GraphDocument } from '../../engine/document/types.js';
import { FORMAT_NAMES } from '../../connectors/files/formats.js';
import { UsageError, type Command, type Io } from './command.js';
import { importOptionsFrom, readOptions, readOptionsUsage, reportFileError } from './inspect.js';
import { importProgress } from './progress.js';
import { oneLine } from '../../engine/render/safe-text.js';
import { DEFAULT_PATHS, DEFAULT_SHOWN_ACTIVITIES, type Simplification } from '../../engine/render/simplify.js';
import { OperatorError } from '../exit-codes.js';

const outputFormats = ['json', 'md', 'dot', 'html'] as const;
type OutputFormat = (typeof outputFormats)[number];
const byExtension: Record<string, OutputFormat> = { '.json': 'json', '.md': 'md', '.markdown': 'md', '.dot': 'dot', '.gv': 'dot', '.html': 'html', '.htm': 'html' };

/** A file the command could not read or write: one line, exit 1. */
class FileError extends OperatorError<'file_unusable'> {
  override name = 'FileError';
  constructor(message: string) {
    super('file_unusable', message);
  }
}

export const command: Command = {
  summary: 'Print the process context graph document of a log file or a project (JSON, Markdown, DOT or HTML)',
  usage: `Usage: pcg graph FILE [reading options] [--format json|md|dot|html] [--out FILE]
                 [--activities PCT] [--paths PCT]
                 [--time-basis clock|working] [--calendar JSON|FILE]
       pcg graph --project-dir DIR [--format json|md|dot|html] [--out FILE]
                 [--activities PCT] [--paths PCT]
                 [--time-basis clock|working] [--calendar JSON|FILE]

Builds the process context graph document (schema service.process-context-graph
1.0) and prints it. With FILE the log is loaded into a temporary project first
(with a progress bar on stderr when it is a terminal); with --project-dir the
project's stored state is read.

  --format F             json (default: the document itself), md (a readable
                         report: what a case is, outcomes, stages, main path,
                         top variants, decisions with rules, policies,
                         exceptions, data quality), dot (a Graphviz map: dot
                         -Tsvg map.dot -o map.svg) or html (one self-contained
                         page with the map and the report; opens offline).
                         Default from the --out extension (.json .md .dot .gv
                         .html), else json
  --out FILE             write to FILE instead of stdout
  --activities PCT       dot and html: the map keeps this percent (0-100) of
                         the activities, the most frequent by cases, and those
                         they are reached through (default: every activity up
                         to ${DEFAULT_SHOWN_ACTIVITIES}, else the most frequent ${DEFAULT_SHOWN_ACTIVITIES}; the web
                         page's map opens the same way)
  --paths PCT            dot and html: the map keeps this percent (0-100) of
                         the paths between kept activities, the most frequent
                         by cases, and the widest way from start to every kept
                         activity and on to end (default ${DEFAULT_PATHS}); the hidden
                         share is stated on the map. --activities 100 --paths
                         100 draws every node and edge
  --project-dir DIR      read the project whose state is DIR/state.sqlite
  --time-basis BASIS     clock (default) or working: every duration counts
                         working hours only (recounted from the stored events)
  --calendar JSON|FILE   the working calendar, as JSON text or a JSON file:
                         {"timeZone":"Europe/Amsterdam","days":[1,2,3,4,5],
                          "hours":[{"from":"09:00","to":"17:00"}],
                          "holidays":["2025-12-25"]} (every field optional;
                         default Monday-Friday 09:00-17:00 UTC)

${readOptionsUsage}`,
  options: {
    ...readOptions,
    format: { type: 'string' },
    activities: { type: 'string' },
    paths: { type: 'string' },
    'project-dir': { type: 'string' },
    'time-basis': { type: 'string' },
    calendar: { type: 'string' },
    out: { type: 'string' },
  },
  async run(values, positionals, io) {
    const dir = typeof values['project-dir'] === 'string' ? values['project-dir'] : undefined;
    if (dir ? positionals.length > 0 : positionals.length !== 1) {
      throw new UsageError(dir ? 'give either FILE or --project-dir, not both' : positionals.length ? 'give exactly one FILE' : 'FILE or --project-dir DIR is required');
    }
    const format = outputFormat(values);
    const view = mapView(values, format);
    const basis = values['time-basis'] ?? 'clock';
    if (basis !== 'clock' && basis !== 'working') throw new UsageError(`--time-basis must be clock or working, not '${String(basis)}'`);
    if (values.calendar !== undefined && basis !== 'working') throw new UsageError('--calendar needs --time-basis working');
    // --format is the output's here; the log's format is --input-format.
    const reading = importOptionsFrom({ ...values, format: undefined });
    try {
      const calendarNeeded = basis === 'working';
      if (!dir && !calendarNeeded) return await graphInMemory(positionals[0]!, reading, format, view, values.out, io);
      const [{ ProjectStore }, { buildDocument, workingSnapshot }, { parseCalendar }] = await Promise.all([
        import('../../engine/index.js'),
        import('../../engine/document/index.js'),
        import('../../engine/calendar.js'),
      ]);
      const calendar = basis === 'working' ? parseCalendar(calendarInput(values.calendar)) : undefined;

      let temp: string | undefined;
      let stateFile: string;
      if (dir) {
        stateFile = join(dir, 'state.sqlite');
        if (!existsSync(stateFile)) throw new UsageError(`no project state at ${stateFile}`);
      } else {
        temp = mkdtempSync(join(tmpdir(), 'pcg-graph-'));
        stateFile = join(temp, 'state.sqlite');
      }
      const store = ProjectStore.open(stateFile);
      try {
        if (!dir) {
          const { importLog } = await import('../../connectors/files/index.js');
          const progress = importProgress('pcg graph', positionals[0]!, io);
          try {
            const summary = await importLog(progress.target(store), positionals[0]!, reading);
            const refused = refusals('graph', positionals[0]!, summary.events, summary.rejected, summary.rejections, io);
            if (refused !== undefined) return refused;
          } catch (error) {
            return reportFileError('graph', error, io);
          } finally {
            progress.done();
          }
        }
        const snapshot = calendar ? workingSnapshot(store, calendar) : store.snapshot();
        return await write(buildDocument(snapshot), format, view, values.out, io);
      } finally {
        store.close();
        if (temp) rmSync(temp, { recursive: true, force: true });
      }
    } catch (error) {
      if (error instanceof FileError) {
        io.err(`pcg graph: ${error.message}\n`);
        return error.exit;
      }
      throw error;
    }
  },
};

/** --format, or the --out file's extension, or json; a log format given as --format is pointed to --input-format. */
function outputFormat(values: Parameters<Command['run']>[0]): OutputFormat {
  const given = values.format;
  if (typeof given === 'string') {
    if ((outputFormats as readonly string[]).includes(given)) return given as OutputFormat;
    if ((FORMAT_NAMES as readonly string[]).includes(given)) throw new UsageError(`--format is the output's format (json, md, dot or html); give the log's format as --input-format ${given}`);
    throw new UsageError(`--format must be json, md, dot or html, not '${given}'`);
  }
  if (typeof values.out === 'string') return byExtension[extname(values.out).toLowerCase()] ?? 'json';
  return 'json';
}

/** The given map percentages (the rest default per document), or undefined for json and md, which draw no map. */
function mapView(values: Parameters<Command['run']>[0], format: OutputFormat): Partial<Simplification> | undefined {
  const given: Partial<Simplification> = {};
  for (const key of ['activities', 'paths'] as const) {
    const v = values[key];
    if (v === undefined) continue;
    const n = Number(v);
    if (typeof v !== 'string' || v.trim() === '' || !Number.isFinite(n) || n < 0 || n > 100) throw new UsageError(`--${key} must be a percent from 0 to 100, not '${String(v)}'`);
    given[key] = n;
  }
  if (format !== 'dot' && format !== 'html') {
    if (Object.keys(given).length) throw new UsageError('--activities and --paths simplify the map: give them with --format dot or html');
    return undefined;
  }
  return given;
}

/** Renders the document and writes it to --out or stdout; dot and html draw the map simplified (defaults per document). */
async function write(doc: GraphDocument, format: OutputFormat, given: Partial<Simplification> | undefined, out: unknown, io: Io): Promise<number> {
  const { renderDocument, defaultSimplification } = await import('../../engine/render/index.js');
  const view = given ? { ...defaultSimplification(doc), ...given } : undefined;
  const text = renderDocument(doc, format, view);
  if (typeof out === 'string' && out !== '-') {
    try {
      writeFileSync(out, text);
    } catch (error) {
      throw new FileError(`cannot write ${out}: ${(error as Error).message}`);
    }
  } else io.out(text);
  return 0;
}

/**
 * FILE on the clock basis: read into memory (no SQLite file; on two threads
 * for a large XES file), whose snapshot is the one a stored project fed the
 * same file has, so the document is the same bytes at a fraction of the time:
 * storing the events was almost all of the stored route's cost.
 */
async function graphInMemory(file: string, reading: Record<string, unknown>, format: OutputFormat, view: Partial<Simplification> | undefined, out: unknown, io: Io): Promise<number> {
  const [{ buildDocument }, { readLogInMemory }] = await Promise.all([import('../../engine/document/index.js'), import('../../connectors/files/memory.js')]);
  const progress = importProgress('pcg graph', file, io);
  let snapshot;
  let rejections;
  try {
    ({ snapshot, rejections } = await readLogInMemory(file, reading, { onItems: (n) => progress.read(n) }));
  } catch (error) {
    return reportFileError('graph', error, io);
  } finally {
    progress.done();
  }
  const refused = refusals('graph', file, snapshot.tally.events, snapshot.rejected, rejections, io);
  if (refused !== undefined) return refused;
  return write(buildDocument(snapshot), format, view, out, io);
}

/** JSON text as given, or the content of the file it names. */
function calendarInput(value: unknown): unknown {
  if (value === undefined) return {};
  const text = String(value).trim();
  let json = text;
  if (!text.startsWith('{')) {
    try {
      json = readFileSync(text, 'utf8');
    } catch (error) {
      throw new FileError(`cannot read the calendar file ${text}: ${(error as Error).message}`);
    }
  }
  try {
    return JSON.parse(json);
  } catch {
    throw new UsageError('--calendar must be a JSON object or a file holding one');
  }
}

/**
 * Records of the file that were refused are said on stderr, with where and why the first were (a row dropped in
 * silence was the user's to find in the report's assumptions); a file none of whose records could be read is not a
 * log this reading understands, and fails (exit 1) rather than print the report of no cases. Undefined: go on.
 */
function refusals(command: string, file: string, events: number, rejected: number, first: readonly { location: string; reason: string }[], io: Io): number | undefined {
  if (rejected === 0) return undefined;
  const where = first.slice(0, 3).map((r) => `${oneLine(r.location)}: ${oneLine(r.reason)}`);
  const shown = where.length ? `; ${where.length === rejected ? '' : 'the first: '}${where.join('; ')}` : '';
  if (events === 0) {
    io.err(`pcg ${command}: no event of ${oneLine(file)} could be read: ${rejected} record${rejected === 1 ? ' was' : 's were'} refused${shown} (pcg inspect ${oneLine(file)} tells more)\n`);
    return 1;
  }
  io.err(`pcg ${command}: ${rejected} record${rejected === 1 ? ' was' : 's were'} refused and ${rejected === 1 ? 'is' : 'are'} not counted${shown}\n`);
  return undefined;
}

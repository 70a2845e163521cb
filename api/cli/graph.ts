import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsageError, type Command, type Io } from './command.js';
import { importOptionsFrom, readOptions, readOptionsUsage, reportFileError } from './inspect.js';

export const command: Command = {
  summary: 'Print the process context graph document of a log file or a project',
  usage: `Usage: pcg graph FILE [reading options] [--time-basis clock|working] [--calendar JSON|FILE] [--out FILE]
       pcg graph --project-dir DIR [--time-basis clock|working] [--calendar JSON|FILE] [--out FILE]

Builds the process context graph document (schema service.process-context-graph
1.0) and prints it as JSON. With FILE the log is loaded into a temporary
project first; with --project-dir the project's stored state is read.

  --project-dir DIR      read the project whose state is DIR/state.sqlite
  --time-basis BASIS     clock (default) or working: every duration counts
                         working hours only (recounted from the stored events)
  --calendar JSON|FILE   the working calendar, as JSON text or a JSON file:
                         {"timeZone":"Europe/Amsterdam","days":[1,2,3,4,5],
                          "hours":[{"from":"09:00","to":"17:00"}],
                          "holidays":["2025-12-25"]} (every field optional;
                         default Monday-Friday 09:00-17:00 UTC)
  --out FILE             write the document to FILE instead of stdout

${readOptionsUsage}`,
  options: {
    ...readOptions,
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
    const basis = values['time-basis'] ?? 'clock';
    if (basis !== 'clock' && basis !== 'working') throw new UsageError(`--time-basis must be clock or working, not '${String(basis)}'`);
    if (values.calendar !== undefined && basis !== 'working') throw new UsageError('--calendar needs --time-basis working');
    const calendarNeeded = basis === 'working';
    if (!dir && !calendarNeeded) return graphInMemory(positionals[0]!, values, io);
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
        try {
          await importLog(store, positionals[0]!, importOptionsFrom(values));
        } catch (error) {
          return reportFileError('graph', error, io);
        }
      }
      const snapshot = calendar ? workingSnapshot(store, calendar) : store.snapshot();
      const text = `${JSON.stringify(buildDocument(snapshot), null, 2)}\n`;
      if (typeof values.out === 'string') writeFileSync(values.out, text);
      else io.out(text);
      return 0;
    } finally {
      store.close();
      if (temp) rmSync(temp, { recursive: true, force: true });
    }
  },
};

/**
 * FILE on the clock basis: read into a project held in memory (no SQLite file),
 * whose snapshot is the one a stored project fed the same batches has, so the
 * document is the same bytes at a fraction of the time: storing the events was
 * almost all of the stored route's cost.
 */
async function graphInMemory(file: string, values: Parameters<Command['run']>[0], io: Io): Promise<number> {
  const [{ MemoryProject }, { buildDocument }, { importLog }] = await Promise.all([
    import('../../engine/store/memory-project.js'),
    import('../../engine/document/index.js'),
    import('../../connectors/files/index.js'),
  ]);
  const project = new MemoryProject();
  try {
    await importLog(project, file, importOptionsFrom(values));
  } catch (error) {
    return reportFileError('graph', error, io);
  }
  const text = `${JSON.stringify(buildDocument(project.snapshot()), null, 2)}\n`;
  if (typeof values.out === 'string') writeFileSync(values.out, text);
  else io.out(text);
  return 0;
}

/** JSON text as given, or the content of the file it names. */
function calendarInput(value: unknown): unknown {
  if (value === undefined) return {};
  const text = String(value).trim();
  const json = text.startsWith('{') ? text : readFileSync(text, 'utf8');
  try {
    return JSON.parse(json);
  } catch {
    throw new UsageError('--calendar must be a JSON object or a file holding one');
  }
}

import { Writable } from 'node:stream';
import { parseIsoMillis } from '../../engine/index.js';
import { logFormats, modelNames, writeSimulation, type LogFormat } from '../../connectors/simulator/index.js';
import { processIo, UsageError, type Command, type Io } from './command.js';

const usage = `Usage: pcg simulate --model NAME [--cases N] [--seed S] [--format csv|ndjson|xes] [--out FILE]
                    [--late SHARE] [--duplicates SHARE] [--open SHARE] [--start TIME]
       pcg simulate --list

Writes a deterministic event log from a built-in process model: the same
model, cases and seed give the same bytes on every machine.

Options:
  --list              print the model names, one per line
  --model NAME        the process model (see --list)
  --cases N           number of cases (default 1000)
  --seed S            integer seed (default 1)
  --format F          csv, ndjson or xes (default: from the --out extension, else ndjson)
  --out FILE          where to write; '-' or absent for standard output
  --late SHARE        share of events emitted after a later event of their case (default 0)
  --duplicates SHARE  share of events emitted twice (default 0)
  --open SHARE        share of cases still open when the window closes (default 0.05)
  --start TIME        ISO time of the window start (default 2025-01-06T00:00:00Z)
  -h, --help          this text
`;

function text(values: Record<string, unknown>, name: string): string | undefined {
  const v = values[name];
  return typeof v === 'string' ? v : undefined;
}

function integer(values: Record<string, unknown>, name: string, fallback: number, min: number): number {
  const raw = text(values, name);
  if (raw === undefined) return fallback;
  if (!/^-?\d+$/.test(raw.trim()) || Number(raw) < min || !Number.isSafeInteger(Number(raw))) throw new UsageError(`--${name} must be a whole number >= ${min}, got '${raw}'`);
  return Number(raw);
}

function share(values: Record<string, unknown>, name: string): number | undefined {
  const raw = text(values, name);
  if (raw === undefined) return undefined;
  const v = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(v) || v < 0 || v >= 1) throw new UsageError(`--${name} must be a share in [0, 1), got '${raw}'`);
  return v;
}

function formatOf(values: Record<string, unknown>, out: string | undefined): LogFormat {
  const raw = text(values, 'format');
  if (raw !== undefined) {
    if (!(logFormats as readonly string[]).includes(raw)) throw new UsageError(`--format must be one of ${logFormats.join(', ')}, got '${raw}'`);
    return raw as LogFormat;
  }
  const ext = out?.toLowerCase().match(/\.(csv|xes|ndjson|jsonl)$/)?.[1];
  return ext === 'csv' || ext === 'xes' ? ext : 'ndjson';
}

/** Standard output: the real stream (with back-pressure) for the binary, the Io for tests. */
function stdoutOf(io: Io): Writable {
  if (io.out === processIo.out) return process.stdout;
  return new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      io.out(chunk.toString());
      done();
    },
  });
}

export const command: Command = {
  summary: 'write a simulated event log from a built-in process model',
  usage,
  options: {
    list: { type: 'boolean' },
    model: { type: 'string' },
    cases: { type: 'string' },
    seed: { type: 'string' },
    format: { type: 'string' },
    out: { type: 'string' },
    late: { type: 'string' },
    duplicates: { type: 'string' },
    open: { type: 'string' },
    start: { type: 'string' },
  },
  async run(values, positionals, io) {
    if (positionals.length) throw new UsageError(`unexpected argument '${positionals[0]}'`);
    if (values.list) {
      io.out(`${modelNames().join('\n')}\n`);
      return 0;
    }
    const model = text(values, 'model');
    if (model === undefined) throw new UsageError('--model is required (see --list)');
    if (!modelNames().includes(model)) throw new UsageError(`unknown model '${model}' (known: ${modelNames().join(', ')})`);
    const startText = text(values, 'start');
    const start = startText === undefined ? undefined : parseIsoMillis(startText);
    if (start !== undefined && !Number.isFinite(start)) throw new UsageError(`--start must be an ISO 8601 time, got '${startText}'`);
    const out = text(values, 'out');
    const toFile = out !== undefined && out !== '-';
    const format = formatOf(values, toFile ? out : undefined);
    const options = {
      model,
      cases: integer(values, 'cases', 1000, 0),
      seed: integer(values, 'seed', 1, Number.MIN_SAFE_INTEGER),
      start,
      lateShare: share(values, 'late'),
      duplicateShare: share(values, 'duplicates'),
      openShare: share(values, 'open'),
    };
    const result = await writeSimulation(options, format, toFile ? out : stdoutOf(io));
    if (toFile) io.err(`pcg simulate: ${result.events} events of ${options.cases} ${model} cases written to ${out} (${format})\n`);
    return 0;
  },
};

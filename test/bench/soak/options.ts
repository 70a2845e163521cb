import { parseArgs } from 'node:util';

/**
 * The soak's command line, and the limits it runs the server under. Parsed
 * once by main: every other file gets what it needs passed in, so that a
 * file can be read (and imported) without the run starting.
 */
export interface SoakOptions {
  minutes: number;
  sampleSeconds: number;
  pathological: boolean;
  /**
   * The simulated window each stream is drawn from. The default, 20,000, keeps about a thousand cases in
   * flight per stream: a process in a steady state, whose cases end as others start. With 10M nearly every
   * case is still open when the run ends and a third of the events start a new case, so each stream's
   * per-case state grows all run long: with the fold caches bounded, its stores recount more and more cases
   * from their rows, and that tenant's own ingest slows (BENCHMARKS.md, the 8th soak).
   */
  streamCases: number;
  /**
   * Minutes into the load at which the server writes a V8 heap snapshot (SIGUSR2 to a child started with
   * --heapsnapshot-signal); empty: none, and the child runs without the flag. Each snapshot stalls the
   * server for seconds and needs about its heap again in memory, so latency and RSS near them are not the run's.
   */
  heapSnapshotAt: number[];
  /** Whether the server runs with --cpu-prof (its profiles are kept for after the run; sampling slows it a little). */
  cpuProfile: boolean;
  durationMs: number;
}

export const DEFAULT_STREAM_CASES = 20_000;

export function readOptions(args = process.argv.slice(2)): SoakOptions {
  const { values } = parseArgs({
    args,
    options: {
      minutes: { type: 'string', default: '10' },
      'sample-seconds': { type: 'string', default: '10' },
      pathological: { type: 'string', default: 'on' },
      'stream-cases': { type: 'string', default: String(DEFAULT_STREAM_CASES) },
      'heap-snapshot-at': { type: 'string', default: '' },
      'cpu-profile': { type: 'boolean', default: false },
    },
  });
  const minutes = Number(values.minutes);
  const sampleSeconds = Number(values['sample-seconds']);
  if (!(minutes > 0) || !(sampleSeconds >= 1)) throw new Error('--minutes must be > 0 and --sample-seconds >= 1');
  const heapSnapshotAt = values['heap-snapshot-at'] ? values['heap-snapshot-at'].split(',').map(Number) : [];
  if (heapSnapshotAt.some((m) => !(m > 0 && m < minutes))) throw new Error('--heap-snapshot-at takes minutes within the run, comma-separated');
  return {
    minutes,
    sampleSeconds,
    pathological: values.pathological !== 'off',
    streamCases: Number(values['stream-cases']),
    heapSnapshotAt,
    cpuProfile: values['cpu-profile'] === true,
    durationMs: minutes * 60_000,
  };
}

/** The command that reproduces a run, for the report's first lines. */
export const commandLine = (o: SoakOptions) =>
  `node --import tsx test/bench/soak.ts --minutes ${o.minutes} --sample-seconds ${o.sampleSeconds}${o.pathological ? '' : ' --pathological off'}${o.streamCases === DEFAULT_STREAM_CASES ? '' : ` --stream-cases ${o.streamCases}`}${o.heapSnapshotAt.length ? ` --heap-snapshot-at ${o.heapSnapshotAt.join(',')}` : ''}${o.cpuProfile ? ' --cpu-profile' : ''}`;

export const GLOBAL = 'soak-global-key-0123456789abcdef';
export const METRICS = 'soak-metrics-token-0123456789';
/** Lowered from the defaults so that the pathological tenant reaches them within the run. */
export const PROJECT_LIMIT = 40;
export const UPLOAD_LIMIT = 4 * 1024 * 1024;
/** The hostile inputs' bounds (issue 32), lowered so that a file of a few MB reaches them. */
export const OCEL_RELATIONS_LIMIT = 1_000_000;
export const HEADERS_TIMEOUT_MS = 5000;
export const BODY_LIMIT = 16 * 1024 * 1024; // the default
export const LIMITS = { id: 512, activity: 1024, attributeValue: 65536, attributes: 1000, eventsPerRequest: 100_000 }; // the defaults

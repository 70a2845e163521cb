import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sleep } from './clock.js';
import { GLOBAL, HEADERS_TIMEOUT_MS, METRICS, OCEL_RELATIONS_LIMIT, PROJECT_LIMIT, UPLOAD_LIMIT } from './options.js';

/**
 * The `pcg serve` under soak: a child process, so that its RSS and
 * descriptors (read from /proc/<pid>) are its own and not the load's, on a
 * fresh temp data directory and a free port of 127.0.0.1. Rate limits stay at
 * their defaults (the pathological tenant's bursts must meet them); the
 * project and upload limits are lowered so that it reaches them too.
 */
export interface SoakServer {
  pid: number;
  base: string;
  dataDir: string;
  /** Where the child writes heap snapshots (kept after the run), if it was started to take them. */
  snapshotDir: string | undefined;
  /** Where the child writes its CPU profiles when it exits (kept after the run), if it was started to profile. */
  profileDir: string | undefined;
  logs: ServerLogs;
  /** Why the server is gone, if it went by itself (not through stop or kill). */
  readonly died: string | undefined;
  /** Resolves once /health/ready answers; throws if the server died or was not ready after 20 s. */
  ready(): Promise<void>;
  /** SIGTERM, as an operator would stop it, then the data directory removed: how it ended ('exit 0' is the only good answer). */
  stop(): Promise<string>;
  /** SIGKILL and the data directory removed: the run is being cut short. */
  kill(): void;
  /** Asks the child for a heap snapshot (written asynchronously into snapshotDir). */
  heapSnapshot(): void;
}

/** The server's log lines (pino JSON at warn and above), counted by level; a few kept. */
export interface ServerLogs {
  warn: number;
  error: number;
  other: number;
  samples: string[];
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Spawns the server; `onDied` is told if it exits before `stop` (the run must then end). */
export async function startServer(onDied: (reason: string) => void, heapSnapshots = false, cpuProfile = false): Promise<SoakServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'pcg-soak-'));
  // Outside the data directory, which is removed at the end: the snapshots are for after the run.
  const snapshotDir = heapSnapshots ? mkdtempSync(join(tmpdir(), 'pcg-soak-heap-')) : undefined;
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const bin = fileURLToPath(new URL('../../../api/bin.mjs', import.meta.url));
  const profileDir = cpuProfile ? mkdtempSync(join(tmpdir(), 'pcg-soak-cpu-')) : undefined;
  const nodeFlags = [
    ...(snapshotDir ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${snapshotDir}`] : []),
    // One profile per thread, written when the server exits (SIGTERM at the end): where the event loop's time went.
    ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
  ];
  const child: ChildProcess = spawn(process.execPath, [...nodeFlags, bin, 'serve', '--data-dir', dataDir, '--host', '127.0.0.1', '--port', String(port), '--log-level', 'warn'], {
    env: {
      ...process.env,
      PCG_GLOBAL_API_KEY: GLOBAL,
      PCG_METRICS_TOKEN: METRICS,
      PCG_LIMIT_PROJECTS_PER_TENANT: String(PROJECT_LIMIT),
      PCG_UPLOAD_LIMIT_BYTES: String(UPLOAD_LIMIT),
      PCG_LIMIT_OCEL_RELATIONS: String(OCEL_RELATIONS_LIMIT),
      PCG_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stopping = false;
  let died: string | undefined;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  void exited.then(({ code, signal }) => {
    if (stopping) return;
    died = `the server exited during the run (code ${code}, signal ${signal})`;
    console.error(`\n!! ${died}`);
    onDied(died);
  });

  const logs: ServerLogs = { warn: 0, error: 0, other: 0, samples: [] };
  for (const stream of [child.stdout!, child.stderr!]) {
    let rest = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop()!;
      for (const line of lines) {
        if (!line.trim()) continue;
        const level = /"level":(\d+)/.exec(line)?.[1];
        if (level === '40') logs.warn++;
        else if (level !== undefined && Number(level) >= 50) logs.error++;
        else logs.other++;
        const short = line.length > 600 ? `${line.slice(0, 600)}…` : line;
        if (logs.samples.length < 200) logs.samples.push(short);
      }
    });
  }

  const kill = () => {
    stopping = true;
    try {
      child.kill('SIGKILL');
    } catch {
      /* gone */
    }
    rmSync(dataDir, { recursive: true, force: true });
  };

  return {
    pid: child.pid!,
    base,
    dataDir,
    snapshotDir,
    profileDir,
    logs,
    get died() {
      return died;
    },
    async ready() {
      for (let i = 0; ; i++) {
        try {
          const r = await fetch(`${base}/health/ready`);
          if (r.ok) return;
        } catch {
          /* not yet */
        }
        if (died || i > 200) throw new Error(`the server did not start: ${died ?? 'not ready after 20 s'}\n${logs.samples.join('\n')}`);
        await sleep(100);
      }
    },
    async stop() {
      stopping = true;
      let stopped = 'already gone';
      if (!died) {
        child.kill('SIGTERM');
        const how = await Promise.race([exited, sleep(20_000).then(() => undefined)]);
        if (!how) {
          child.kill('SIGKILL');
          stopped = 'did not exit within 20 s of SIGTERM (killed)';
        } else stopped = how.code === 0 ? 'exit 0' : `exit ${how.code} signal ${how.signal}`;
      }
      rmSync(dataDir, { recursive: true, force: true });
      return stopped;
    },
    kill,
    heapSnapshot() {
      if (!snapshotDir || died) return;
      child.kill('SIGUSR2');
    },
  };
}

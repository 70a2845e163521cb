import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * The python of the cached pm4py virtualenv (created on first use by
 * pm4py-venv.sh). Tests that compare with pm4py call this once per file.
 */
let cached: string | undefined;
export function pm4pyPython(): string {
  if (!cached) {
    const script = fileURLToPath(new URL('./pm4py-venv.sh', import.meta.url));
    cached = execFileSync('bash', [script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 900_000 }).trim();
  }
  return cached;
}

/** Runs a python script with pm4py available; returns its stdout parsed as JSON. */
export function runPm4py<T = unknown>(script: string, args: string[] = [], timeoutMs = 600_000): T {
  const out = execFileSync(pm4pyPython(), ['-c', script, ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    timeout: timeoutMs,
    env: { ...process.env, PYTHONWARNINGS: 'ignore' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // pm4py prints a banner on import; the JSON is the last line.
  const lines = out.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]!) as T;
}

/** The folder of real logs, or undefined when the real-log suite is off. */
export const realLogs: string | undefined = process.env.PCG_REAL_LOGS || undefined;

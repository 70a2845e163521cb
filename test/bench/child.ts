import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Runs one measured step of a benchmark in a child process, so each step's
 * peak RSS is its own. The child prints one JSON line as its last output.
 */
export function runChild<T>(script: string, args: string[], nodeFlags: string[] = []): T {
  const out = execFileSync(process.execPath, [...nodeFlags, '--import', 'tsx', fileURLToPath(script), ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 26,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = out.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]!) as T;
}

/** Peak resident set of this process so far, in MiB. */
export const peakRssMiB = (): number => Math.round(process.resourceUsage().maxRSS / 1024);

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

/** Wall and CPU seconds and peak RSS of one command. */
export interface TimedRun {
  wallS: number;
  cpuS: number;
  rssMb: number;
}

/** The `pcg` binary (bundle or sources, as api/bin.mjs decides). */
export const PCG = fileURLToPath(new URL('../../api/bin.mjs', import.meta.url));

/** `pcg ARGS` under /usr/bin/time: wall, user + system CPU, peak RSS (start-up included). */
export function timedPcg(args: string[]): TimedRun {
  const start = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', '%U %S %M', process.execPath, PCG, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const wallS = (performance.now() - start) / 1000;
  if (r.status !== 0) throw new Error(`pcg ${args.join(' ')}: ${r.stderr}`);
  const [user, sys, rss] = r.stderr.trim().split('\n').pop()!.split(' ').map(Number) as [number, number, number];
  return { wallS, cpuS: user + sys, rssMb: Math.round(rss / 1024) };
}

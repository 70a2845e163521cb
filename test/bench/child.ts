import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Runs one measured step of a benchmark in a child process, so each step's
 * peak RSS is its own. The child prints one JSON line as its last output.
 */
export function runChild<T>(script: string, args: string[]): T {
  const out = execFileSync(process.execPath, ['--import', 'tsx', fileURLToPath(script), ...args], {
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

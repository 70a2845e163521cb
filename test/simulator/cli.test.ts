import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../api/cli/main.js';
import { modelNames, simulate } from '../../connectors/simulator/index.js';

function buffers() {
  const io = { stdout: '', stderr: '', out: (t: string) => void (io.stdout += t), err: (t: string) => void (io.stderr += t) };
  return io;
}

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('pcg simulate', () => {
  it('--list prints one model name per line', async () => {
    const io = buffers();
    expect(await main(['simulate', '--list'], io)).toBe(0);
    expect(io.stdout).toBe(`${modelNames().join('\n')}\n`);
  });

  it('--help prints the usage', async () => {
    const io = buffers();
    expect(await main(['simulate', '--help'], io)).toBe(0);
    expect(io.stdout).toMatch(/^Usage: pcg simulate --model NAME/);
    expect(io.stdout).toContain('--duplicates SHARE');
  });

  it('writes the same log as the library, to stdout or a file', async () => {
    const io = buffers();
    expect(await main(['simulate', '--model', 'claims', '--cases', '20', '--seed', '3', '--late', '0.1', '--duplicates', '0.1'], io)).toBe(0);
    const expected = [...simulate({ model: 'claims', cases: 20, seed: 3, lateShare: 0.1, duplicateShare: 0.1 })];
    expect(io.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as unknown)).toEqual(expected);

    dir = mkdtempSync(join(tmpdir(), 'pcg-cli-'));
    const file = join(dir, 'log.csv');
    const io2 = buffers();
    expect(await main(['simulate', '--model', 'claims', '--cases', '20', '--seed', '3', '--out', file], io2)).toBe(0);
    expect(io2.stdout).toBe('');
    expect(io2.stderr).toMatch(/written to .*log\.csv \(csv\)/);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines[0]).toMatch(/^case:concept:name,concept:name,time:timestamp,org:resource,event_id,claimType/);
    expect(lines.length - 1).toBe([...simulate({ model: 'claims', cases: 20, seed: 3 })].length);
  });

  it('refuses bad options with the usage and exit code 2', async () => {
    for (const argv of [
      ['simulate'],
      ['simulate', '--model', 'nope'],
      ['simulate', '--model', 'claims', '--cases', 'ten'],
      ['simulate', '--model', 'claims', '--cases', '-5'],
      ['simulate', '--model', 'claims', '--seed', '1.5'],
      ['simulate', '--model', 'claims', '--format', 'parquet'],
      ['simulate', '--model', 'claims', '--late', '1.5'],
      ['simulate', '--model', 'claims', '--duplicates', 'x'],
      ['simulate', '--model', 'claims', '--start', 'yesterday'],
      ['simulate', '--model', 'claims', 'extra'],
      ['simulate', '--bogus'],
    ]) {
      const io = buffers();
      expect(await main(argv, io), argv.join(' ')).toBe(2);
      expect(io.stderr, argv.join(' ')).toContain('Usage: pcg simulate');
      expect(io.stdout).toBe('');
    }
  });

  it('runs as `npx pcg simulate --list` through the binary', () => {
    const out = execFileSync('node', ['api/bin.mjs', 'simulate', '--list'], { encoding: 'utf8' });
    expect(out.trim().split('\n')).toEqual(modelNames());
  });
});

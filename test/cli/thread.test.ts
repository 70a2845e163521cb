import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Catalog } from '../../api/catalog/index.js';
import { main } from '../../api/cli/main.js';
import { runOnThread, THREADED_COMMANDS } from '../../api/cli/thread.js';

const bin = fileURLToPath(new URL('../../api/bin.mjs', import.meta.url));

function capture() {
  let out = '';
  let err = '';
  return { io: { out: (t: string) => void (out += t), err: (t: string) => void (err += t) }, text: () => ({ out, err }) };
}

/** A small log: 3 cases, one refused record. */
const LOG = [
  { caseId: 'c1', activity: 'Create', timestamp: '2026-01-01T08:00:00Z' },
  { caseId: 'c1', activity: 'Approve', timestamp: '2026-01-01T09:30:00Z' },
  { caseId: 'c2', activity: 'Create', timestamp: '2026-01-02T08:00:00Z' },
  { caseId: 'c2', activity: 'Reject', timestamp: '2026-01-02T08:45:00Z' },
  { caseId: 'c3', activity: 'Create', timestamp: '2026-01-03T10:00:00Z' },
  { caseId: 'c3', activity: 'Approve', timestamp: 'not a time' },
]
  .map((e) => JSON.stringify(e))
  .join('\n');

describe('commands on a thread (api/cli/thread.ts)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pcg-thread-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('runs import and worker on a thread; the rest on the main thread', () => {
    expect([...THREADED_COMMANDS.keys()]).toEqual(['import', 'worker']);
    expect(THREADED_COMMANDS.get('worker')?.signals).toBe(true);
    expect(THREADED_COMMANDS.get('import')?.signals).toBe(false);
  });

  it('prints and exits as the same command on the main thread does', async () => {
    const file = join(dir, 'log.ndjson');
    writeFileSync(file, LOG);
    const threaded = capture();
    expect(await runOnThread(['import', file, '--project-dir', join(dir, 'a')], threaded.io)).toBe(0);
    const direct = capture();
    expect(await main(['import', file, '--project-dir', join(dir, 'b')], direct.io)).toBe(0);
    expect(threaded.text()).toEqual(direct.text());
    const summary = JSON.parse(threaded.text().out) as { accepted: number; rejected: number };
    expect([summary.accepted, summary.rejected]).toEqual([5, 1]);

    const graphs = [capture(), capture()];
    expect(await runOnThread(['graph', file], graphs[0]!.io)).toBe(0);
    expect(await main(['graph', file], graphs[1]!.io)).toBe(0);
    expect(graphs[0]!.text().out).toBe(graphs[1]!.text().out);
    expect((JSON.parse(graphs[0]!.text().out) as { source: { cases: number; events: number } }).source).toMatchObject({ cases: 3, events: 5 });
  });

  it("passes a failing command's exit code and message through", async () => {
    const c = capture();
    expect(await runOnThread(['import', join(dir, 'missing.ndjson'), '--project-dir', dir], c.io)).toBe(1);
    expect(c.text().err).toMatch(/^pcg import: /);
    const usage = capture();
    expect(await runOnThread(['import', '--no-such-option'], usage.io)).toBe(2);
    expect(usage.text().err).toMatch(/no-such-option/);
  });

  it('relays SIGTERM to `pcg worker` on its thread, which stops cleanly with exit code 0', async () => {
    Catalog.open(join(dir, 'catalog.sqlite')).close();
    const child = spawn(process.execPath, [bin, 'worker', '--data-dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += String(d)));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    while (!out.includes('consuming')) await new Promise((r) => setTimeout(r, 50));
    // Its id names the thread its sources run on (host:pid:thread): the binary ran the command on a thread.
    expect(out).toMatch(new RegExp(`^pcg worker \\S+:${child.pid}:\\d+ consuming the sources of `));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 30_000);
});

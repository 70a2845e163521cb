/**
 * The CLI never hands a terminal a control character from data: file names in
 * messages and on the progress bar, activity names in every --format, the
 * diff text and inspect's JSON show them escaped (engine/render/safe-text.ts),
 * while JSON output still parses back to the exact values.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../api/cli/main.js';
import { fileProgress } from '../../api/cli/progress.js';
import { controlsIn } from '../render/format-checks.js';
import { scratchDir } from '../render/helpers.js';

function capture() {
  let out = '';
  let err = '';
  return { io: { out: (t: string) => void (out += t), err: (t: string) => void (err += t) }, out: () => out, err: () => err };
}

const NAMES = ['<img src=x onerror=alert(1)>\n# Injected heading', 'safe\u202etxt.exe', 'title \x1b]0;pwned\x07', 'clear \x1b[2J\x9b', 'L'.repeat(1024)];

describe('the CLI with hostile names', () => {
  const dir = scratchDir();
  // A file name may hold an escape sequence too (only / and NUL are not allowed).
  const log = join(dir, 'log \x1b]0;pwned\x07.ndjson');
  beforeAll(() => {
    const lines: string[] = [];
    for (let c = 0; c < 12; c++) {
      NAMES.forEach((activity, i) => lines.push(JSON.stringify({ caseId: `c${c}`, activity, timestamp: new Date(Date.UTC(2025, 0, 1, c, i)).toISOString(), resource: `res \u202e${c % 3}` })));
    }
    writeFileSync(log, `${lines.join('\n')}\n`);
  });

  it('writes every --format without a control character; json parses to the exact names', async () => {
    for (const format of ['md', 'dot', 'html', 'json']) {
      const t = capture();
      expect(await main(['graph', log, '--format', format], t.io), format).toBe(0);
      expect(controlsIn(t.out()), format).toEqual([]);
      expect(t.err()).toBe('');
      if (format === 'json') {
        const doc = JSON.parse(t.out()) as { nodes: { kind: string; label: string }[] };
        expect(doc.nodes.filter((n) => n.kind === 'activity').map((n) => n.label).sort()).toEqual([...NAMES].sort());
        expect(t.out()).toContain('safe\\u202etxt.exe');
      }
    }
  });

  it('prints the diff text and inspect JSON without a control character', async () => {
    const a = join(dir, 'a \u202e.json');
    expect(await main(['graph', log, '--out', a], capture().io)).toBe(0);
    const empty = JSON.parse(readFileSync(a, 'utf8'));
    const b = join(dir, 'b.json');
    writeFileSync(b, JSON.stringify({ ...empty, nodes: empty.nodes.filter((n: { kind: string }) => n.kind !== 'activity'), edges: [], variants: [] }));
    const d = capture();
    expect(await main(['diff', b, a], d.io)).toBe(0);
    expect(controlsIn(d.out())).toEqual([]);
    expect(d.out()).toContain('a \\u{202E}.json: data version');
    expect(d.out()).toContain('  + title \\x1b]0;pwned\\x07 (12 cases)');
    expect(d.out()).toContain('  + <img src=x onerror=alert(1)>\\n# Injected heading (12 cases)');

    const i = capture();
    expect(await main(['inspect', log], i.io)).toBe(0);
    expect(controlsIn(i.out())).toEqual([]);
    expect(JSON.parse(i.out()).events).toBe(12 * NAMES.length);
  });

  it('shows a file name and an option value in messages escaped', async () => {
    const missing = capture();
    expect(await main(['inspect', join(dir, 'nope \x1b]0;pwned\x07.csv')], missing.io)).toBe(1);
    expect(controlsIn(missing.err())).toEqual([]);
    expect(missing.err()).toContain('nope \\x1b]0;pwned\\x07.csv');
    const usage = capture();
    expect(await main(['graph', log, '--format', '\x1b[2J\u202e'], usage.io)).toBe(2);
    expect(controlsIn(usage.err())).toEqual([]);
    expect(usage.err()).toContain("not '\\x1b[2J\\u{202E}'");
    const invalid = capture();
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ schema: 'x\u202e', ['k\x1b[2J']: 1 }));
    expect(await main(['validate', join(dir, 'bad.json')], invalid.io)).toBe(1);
    expect(controlsIn(invalid.out() + invalid.err())).toEqual([]);
  });

  it("draws the file's name on the progress bar escaped: the bar's own sequences are the only ones", () => {
    const written: string[] = [];
    const p = fileProgress('pcg import', log, { isTTY: true, columns: 200, write: (t: string) => void written.push(t) }, { delayMs: 0, intervalMs: 60_000 });
    p.tick();
    p.done();
    expect(written[0]!.startsWith('\r\x1b[Kpcg import: log \\x1b]0;pwned\\x07.ndjson ')).toBe(true);
    for (const w of written) expect(controlsIn(w.replace(/^\r\x1b\[K/, ''))).toEqual([]);
  });
});

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../api/cli/main.js';
import { scratch } from './helpers.js';

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => void out.push(t), err: (t: string) => void err.push(t) }, out, err };
}

describe('pcg inspect and pcg import', () => {
  it('inspect prints the JSON summary; import loads into DIR/state.sqlite once', async () => {
    const s = scratch();
    const path = s.file('log.csv', 'CaseID|Activity|Timestamp\n1|A|2024-01-01 10:00\n1|B|2024-01-01 11:00\n2|A|oops\n');
    const a = io();
    expect(await main(['inspect', path, '--timezone', 'Europe/Amsterdam'], a.io)).toBe(0);
    const summary = JSON.parse(a.out.join(''));
    expect(summary).toMatchObject({ format: 'csv', case_notion: 'CaseID', cases: 1, events: 2, activities: 2, variants: 1, period_start: '2024-01-01T09:00:00.000Z', rejected: 1, rejections: [{ location: 'line 4', reason: "cannot read timestamp 'oops' in column 'Timestamp'" }] });

    const dir = join(s.dir, 'project');
    const b = io();
    expect(await main(['import', path, '--project-dir', dir, '--batch-size', '1'], b.io)).toBe(0);
    expect(JSON.parse(b.out.join(''))).toMatchObject({ accepted: 2, duplicates: 0, rejected: 1, cases: 1, events: 2 });
    expect(existsSync(join(dir, 'state.sqlite'))).toBe(true);
    const c = io();
    expect(await main(['import', path, '--project-dir', dir], c.io)).toBe(0);
    expect(JSON.parse(c.out.join(''))).toMatchObject({ accepted: 0, duplicates: 0, already_imported: 3, cases: 1, events: 2 });
  });

  it('prints a stable code for a bad file and the usage for bad arguments', async () => {
    const s = scratch();
    const a = io();
    expect(await main(['inspect', s.file('empty.csv', '')], a.io)).toBe(1);
    expect(a.err.join('')).toMatch(/^pcg inspect: empty_file: .*empty\.csv is empty/);
    const b = io();
    expect(await main(['inspect', s.file('x.csv', 'a,b\n'), '--lifecycle', 'sometimes'], b.io)).toBe(1);
    expect(b.err.join('')).toMatch(/invalid_option: lifecycle/);
    const c = io();
    expect(await main(['import', s.file('y.csv', 'a,b\n')], c.io)).toBe(2);
    expect(c.err.join('')).toMatch(/--project-dir DIR is required/);
    for (const name of ['inspect', 'import']) {
      const h = io();
      expect(await main([name, '--help'], h.io)).toBe(0);
      expect(h.out.join('')).toMatch(/--start-timestamp COL/);
    }
  });
});

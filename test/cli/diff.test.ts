import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../api/cli/main.js';
import { diffDocuments, renderDiffText } from '../../engine/render/index.js';
import { scratchDir, simulatedLog, withExtraActivity } from '../render/helpers.js';

function capture() {
  let out = '';
  let err = '';
  return { io: { out: (t: string) => void (out += t), err: (t: string) => void (err += t) }, out: () => out, err: () => err };
}

describe('pcg diff', () => {
  const dir = scratchDir();
  const a = join(dir, 'a.json');
  const b = join(dir, 'b.json');
  beforeAll(async () => {
    const log = await simulatedLog(dir, 'helpdesk', 200, 4);
    const more = join(dir, 'more.ndjson');
    withExtraActivity(log, more, 'Archive Ticket');
    expect(await main(['graph', log, '--out', a], capture().io)).toBe(0);
    expect(await main(['graph', more, '--out', b], capture().io)).toBe(0);
  });

  it('prints no differences between a document and itself, exit 0', async () => {
    const c = capture();
    expect(await main(['diff', a, a], c.io)).toBe(0);
    expect(c.out().trim().split('\n').at(-1)).toBe('No differences.');
    const j = capture();
    expect(await main(['diff', a, a, '--format', 'json'], j.io)).toBe(0);
    const d = JSON.parse(j.out());
    expect(d.same).toBe(true);
    for (const s of Object.values(d.summary) as { added: number; removed: number; changed: number }[]) expect([s.added, s.removed, s.changed]).toEqual([0, 0, 0]);
  });

  it('reports the added activity for people and for agents, exit 0', async () => {
    const before = JSON.parse(readFileSync(a, 'utf8'));
    const after = JSON.parse(readFileSync(b, 'utf8'));
    const t = capture();
    expect(await main(['diff', a, b], t.io)).toBe(0);
    expect(t.out()).toBe(renderDiffText(diffDocuments(before, after), { before: a, after: b }));
    expect(t.out()).toContain('  + Archive Ticket (50 cases)');
    const j = capture();
    expect(await main(['diff', a, b, '--format', 'json'], j.io)).toBe(0);
    const d = JSON.parse(j.out());
    expect(d).toEqual(JSON.parse(JSON.stringify(diffDocuments(before, after))));
    expect(d.sections.nodes.added).toEqual([{ key: 'archive-ticket', label: 'Archive Ticket', fields: expect.objectContaining({ cases: 50 }) }]);
    const out = join(dir, 'diff.json');
    expect(await main(['diff', a, b, '--format', 'json', '--out', out], capture().io)).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(j.out());
  });

  it('exits 2 with the usage on bad arguments', async () => {
    const one = capture();
    expect(await main(['diff', a], one.io)).toBe(2);
    expect(one.err()).toMatch(/^pcg diff: give two documents: A\.json B\.json\n\nUsage: pcg diff/);
    const fmt = capture();
    expect(await main(['diff', a, b, '--format', 'xml'], fmt.io)).toBe(2);
    expect(fmt.err()).toContain("--format must be text or json, not 'xml'");
    expect(await main(['diff', a, b, '--colour'], capture().io)).toBe(2);
  });

  it('exits 1 with one line on a file that is missing, not JSON or no graph document', async () => {
    const missing = capture();
    expect(await main(['diff', a, join(dir, 'nope.json')], missing.io)).toBe(1);
    expect(missing.err()).toMatch(/^pcg diff: .*nope\.json: ENOENT[^\n]*\n$/);
    const notJson = join(dir, 'x.json');
    writeFileSync(notJson, '{ nope');
    const bad = capture();
    expect(await main(['diff', notJson, a], bad.io)).toBe(1);
    expect(bad.err()).toMatch(/^pcg diff: .*x\.json: not JSON: [^\n]*\n$/);
    const notDoc = join(dir, 'y.json');
    writeFileSync(notDoc, JSON.stringify({ schema: 'service.process-context-graph', nodes: [] }));
    const invalid = capture();
    expect(await main(['diff', a, notDoc], invalid.io)).toBe(1);
    expect(invalid.err()).toMatch(/^pcg diff: .*y\.json: not a valid graph document: \/[^\n]* \(and \d+ more; pcg validate lists them\)\n$/);
    expect(invalid.out()).toBe('');
  });
});

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../api/cli/main.js';
import type { GraphDocument } from '../../engine/document/types.js';
import { defaultSimplification, renderDot, renderHtml, renderMarkdown, simplify } from '../../engine/render/index.js';
import { parseDot } from '../render/dot-parse.js';
import { documentOf, scratchDir, simulatedLog } from '../render/helpers.js';

const bin = fileURLToPath(new URL('../../api/bin.mjs', import.meta.url));

function capture() {
  let out = '';
  let err = '';
  return { io: { out: (t: string) => void (out += t), err: (t: string) => void (err += t) }, out: () => out, err: () => err };
}

describe('pcg graph --format', () => {
  const dir = scratchDir();
  let log: string;
  let doc: GraphDocument;
  beforeAll(async () => {
    log = await simulatedLog(dir, 'claims', 200, 11);
    doc = await documentOf(log);
  });

  it('prints the JSON document by default, byte for byte as before, and with --format json', async () => {
    const plain = capture();
    expect(await main(['graph', log], plain.io)).toBe(0);
    expect(plain.out()).toBe(`${JSON.stringify(doc, null, 2)}\n`);
    const json = capture();
    expect(await main(['graph', log, '--format', 'json'], json.io)).toBe(0);
    expect(json.out()).toBe(plain.out());
    expect(plain.err()).toBe('');
  });

  it('stops quietly when its reader closes the pipe early (`pcg graph … | head`): exit 0, nothing on stderr', async () => {
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [bin, 'graph', log, '--format', 'json'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    // The reader is gone before the command writes its first byte (it writes once the document is built).
    child.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    expect([code, err]).toEqual([0, '']);
  });

  it('says on stderr which records it refused; a file none of whose records is an event fails (exit 1), in memory and stored', async () => {
    const bad = join(dir, 'bad-row.csv');
    writeFileSync(bad, 'case,activity,time\nc1,a,2024-01-01T00:00:00Z\nc1,b,not-a-time\nc1,c,2024-01-02T00:00:00Z\n');
    for (const extra of [[], ['--time-basis', 'working']]) {
      const run = capture();
      expect(await main(['graph', bad, '--format', 'md', ...extra], run.io)).toBe(0);
      expect(run.err()).toBe("pcg graph: 1 record was refused and is not counted; line 3: cannot read timestamp 'not-a-time' in column 'time'\n");
      expect(run.out()).toContain('1 case and 2 events');
    }
    const notLog = join(dir, 'not-a-log.json');
    writeFileSync(notLog, '{"hello": "world", "items": [1, 2, 3]}\n');
    const run = capture();
    expect(await main(['graph', notLog, '--format', 'md'], run.io)).toBe(1);
    expect(run.out()).toBe('');
    expect(run.err()).toMatch(/^pcg graph: no event of .*not-a-log\.json could be read: 1 record was refused; line 1: caseId: .* \(pcg inspect .* tells more\)\n$/);
  });

  it('prints the Markdown report, the DOT map and the HTML page of the same document (the maps simplified as the web page opens them)', async () => {
    const view = defaultSimplification(doc);
    // claims: 16 activities, so the map opens with the 15 most frequent (94 %) and 20 % of the paths.
    expect(view).toEqual({ activities: 94, paths: 20 });
    for (const [format, render] of [
      ['md', renderMarkdown],
      ['dot', (d: GraphDocument) => renderDot(d, view)],
      ['html', (d: GraphDocument) => renderHtml(d, view)],
    ] as const) {
      const c = capture();
      expect(await main(['graph', log, '--format', format], c.io)).toBe(0);
      expect(c.out()).toBe(render(doc));
      expect(c.err()).toBe('');
    }
  });

  it('simplifies the DOT and HTML maps by --activities and --paths, with the hidden share stated; 100 and 100 draw the whole document', async () => {
    const whole = capture();
    expect(await main(['graph', log, '--format', 'dot', '--activities', '100', '--paths', '100'], whole.io)).toBe(0);
    expect(whole.out()).toBe(renderDot(doc, { activities: 100, paths: 100 }));
    const g = parseDot(whole.out());
    expect([...g.nodes.keys()].sort()).toEqual(doc.nodes.map((n) => n.id).sort());
    expect(g.edges).toHaveLength(doc.edges.length);
    expect(whole.out()).not.toContain('Hidden:');

    const thin = capture();
    expect(await main(['graph', log, '--format', 'dot', '--activities', '0', '--paths', '0'], thin.io)).toBe(0);
    const s = simplify(doc, { activities: 0, paths: 0 });
    const t = parseDot(thin.out());
    expect([...t.nodes.keys()].sort()).toEqual([...s.nodes].sort());
    expect(t.edges).toHaveLength(s.edges.length);
    expect(s.nodes.length).toBeLessThan(doc.nodes.length);
    // No kept node without an edge, though 0 % of the paths were asked for.
    for (const id of s.nodes) expect(t.edges.some((e) => e.from === id || e.to === id), id).toBe(true);
    const activities = doc.nodes.filter((n) => n.kind === 'activity').length;
    expect(thin.out()).toContain(`Hidden: ${s.hidden.activities} of ${activities} activities (`);
    expect(thin.out()).toContain(`and ${s.hidden.paths} of ${doc.edges.length} paths (`);

    // Only --paths given: the activities keep their default.
    const paths = capture();
    expect(await main(['graph', log, '--format', 'html', '--paths', '50'], paths.io)).toBe(0);
    expect(paths.out()).toBe(renderHtml(doc, { activities: 94, paths: 50 }));
    expect(paths.out()).toContain('Simplified (activities 94%, paths 50%): Hidden: ');

    for (const bad of [['--activities', '101'], ['--paths', '-1'], ['--paths', 'most'], ['--activities', '']]) {
      const c = capture();
      expect(await main(['graph', log, '--format', 'dot', `${bad[0]}=${bad[1]}`], c.io)).toBe(2);
      expect(c.err()).toContain(`${bad[0]} must be a percent from 0 to 100, not '${bad[1]}'`);
    }
    const md = capture();
    expect(await main(['graph', log, '--format', 'md', '--paths', '10'], md.io)).toBe(2);
    expect(md.err()).toContain('--activities and --paths simplify the map: give them with --format dot or html');
  });

  it('takes the format from the --out extension, and --format over it', async () => {
    const html = join(dir, 'map.html');
    expect(await main(['graph', log, '--out', html], capture().io)).toBe(0);
    expect(readFileSync(html, 'utf8')).toBe(renderHtml(doc, defaultSimplification(doc)));
    const gv = join(dir, 'map.gv');
    expect(await main(['graph', log, '--out', gv], capture().io)).toBe(0);
    expect(readFileSync(gv, 'utf8').startsWith('// Process map')).toBe(true);
    const txt = join(dir, 'report.txt');
    expect(await main(['graph', log, '--out', txt, '--format', 'md'], capture().io)).toBe(0);
    expect(readFileSync(txt, 'utf8')).toBe(renderMarkdown(doc));
    const other = join(dir, 'doc.out');
    expect(await main(['graph', log, '--out', other], capture().io)).toBe(0);
    expect(readFileSync(other, 'utf8')).toBe(`${JSON.stringify(doc, null, 2)}\n`);
  });

  it("reads the log's format from --input-format, and points a log format given as --format there", async () => {
    const c = capture();
    expect(await main(['graph', log, '--input-format', 'ndjson', '--format', 'md'], c.io)).toBe(0);
    expect(c.out()).toBe(renderMarkdown(doc));
    const wrong = capture();
    expect(await main(['graph', log, '--format', 'ndjson'], wrong.io)).toBe(2);
    expect(wrong.err()).toMatch(/^pcg graph: --format is the output's format \(json, md, dot or html\); give the log's format as --input-format ndjson\n\nUsage: pcg graph/);
    const unknown = capture();
    expect(await main(['graph', log, '--format', 'pdf'], unknown.io)).toBe(2);
    expect(unknown.err()).toContain("--format must be json, md, dot or html, not 'pdf'");
  });

  it('exits 2 with the usage on bad arguments and 1 with one line on bad files', async () => {
    const none = capture();
    expect(await main(['graph', '--format', 'md'], none.io)).toBe(2);
    expect(none.err()).toContain('FILE or --project-dir DIR is required');
    expect(none.err()).toContain('Usage: pcg graph');
    const missing = capture();
    expect(await main(['graph', join(dir, 'nope.csv'), '--format', 'html'], missing.io)).toBe(1);
    expect(missing.err().split('\n').filter(Boolean)).toHaveLength(1);
    expect(missing.err()).toMatch(/^pcg graph: file_not_found: /);
    const unwritable = capture();
    expect(await main(['graph', log, '--out', join(dir, 'no', 'such', 'dir', 'x.md')], unwritable.io)).toBe(1);
    expect(unwritable.err()).toMatch(/^pcg graph: cannot write .*x\.md: ENOENT[^\n]*\n$/);
    const calendar = capture();
    expect(await main(['graph', log, '--time-basis', 'working', '--calendar', join(dir, 'nope.json')], calendar.io)).toBe(1);
    expect(calendar.err()).toMatch(/^pcg graph: cannot read the calendar file [^\n]*\n$/);
  });

  it('keeps stderr clean when it is not a terminal (the binary, piped)', () => {
    const r = spawnSync(process.execPath, [bin, 'graph', log, '--format', 'md'], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(renderMarkdown(doc));
  });

  it('writes an HTML file that names no other host', async () => {
    const out = join(dir, 'page.html');
    execFileSync(process.execPath, [bin, 'graph', log, '--format', 'html', '--out', out]);
    expect(existsSync(out)).toBe(true);
    const html = readFileSync(out, 'utf8');
    expect(html).not.toMatch(/https?:\/\//);
    // The simplified map, and the whole one behind the "Show the whole map" button.
    const kept = simplify(doc, defaultSimplification(doc));
    expect(html.match(/<g class="node /g)).toHaveLength(kept.nodes.length + doc.nodes.length);
    expect(html.match(/<svg class="process-map simple-map"/g)).toHaveLength(1);
    expect(html.match(/<svg class="process-map whole-map"/g)).toHaveLength(1);
  });
});

describe('one option style', () => {
  const dir = scratchDir();
  it('lists diff and gives every file-reading command -h and --help', async () => {
    const c = capture();
    expect(await main(['--help'], c.io)).toBe(0);
    expect(c.out()).toMatch(/^  diff +/m);
    for (const name of ['graph', 'diff', 'import', 'inspect']) {
      for (const flag of ['-h', '--help']) {
        const h = capture();
        expect(await main([name, flag], h.io)).toBe(0);
        expect(h.out()).toMatch(new RegExp(`^Usage: pcg ${name}`));
      }
    }
  });

  it('takes the log format as --input-format in inspect and import too', async () => {
    const file = join(dir, 'log.ndjson');
    writeFileSync(file, '{"caseId":"c1","activity":"a","timestamp":"2025-01-01T00:00:00Z"}\n{"caseId":"c1","activity":"b","timestamp":"2025-01-01T01:00:00Z"}\n');
    const a = capture();
    expect(await main(['inspect', file, '--input-format', 'ndjson'], a.io)).toBe(0);
    expect(JSON.parse(a.out())).toMatchObject({ format: 'ndjson', events: 2 });
    const b = capture();
    expect(await main(['inspect', file, '--format', 'ndjson'], b.io)).toBe(0);
    const clash = capture();
    expect(await main(['inspect', file, '--format', 'csv', '--input-format', 'ndjson'], clash.io)).toBe(2);
    expect(clash.err()).toContain("--input-format 'ndjson' and --format 'csv' disagree");
  });
});

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a JavaScript module without types (it runs before tsx is registered).
import { freshBundle, newestSource, ROOT } from '../../api/bundle.mjs';

/** api/bin.mjs runs the bundle in dist/ only while no source is newer than it. */
describe('the bundled pcg command', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const at = (file: string, seconds: number) => utimesSync(file, seconds, seconds);

  it('is used while no source is newer, and not once one is (the web page and node_modules do not count)', () => {
    const root = mkdtempSync(join(tmpdir(), 'pcg-bundle-'));
    dirs.push(root);
    const files = ['engine/a.ts', 'api/cli/b.ts', 'connectors/c.mjs', 'api/web/src/page.ts', 'api/web/dist/index.js', 'connectors/node_modules/x/y.js', 'dist/pcg.mjs'];
    for (const f of files) {
      mkdirSync(join(root, f, '..'), { recursive: true });
      writeFileSync(join(root, f), '');
      at(join(root, f), 1_000);
    }
    at(join(root, 'dist/pcg.mjs'), 2_000);
    expect(newestSource(root)).toBe(1_000_000);
    expect(freshBundle('pcg.mjs', root)).toBe(`file://${join(root, 'dist/pcg.mjs')}`);
    // The page's sources and build, and packages, are not the bundle's sources.
    for (const f of ['api/web/src/page.ts', 'api/web/dist/index.js', 'connectors/node_modules/x/y.js']) at(join(root, f), 3_000);
    expect(freshBundle('pcg.mjs', root)).toBe(`file://${join(root, 'dist/pcg.mjs')}`);
    // A source edited after the build: the sources run instead.
    at(join(root, 'connectors/c.mjs'), 2_500);
    expect(freshBundle('pcg.mjs', root)).toBeUndefined();
    expect(freshBundle('missing.mjs', root)).toBeUndefined();
  });

  it('prints the same document as the sources run through tsx', () => {
    // `make test` builds the bundle first (make install); run alone, the test builds it.
    if (!freshBundle('pcg.mjs')) execFileSync(process.execPath, [join(ROOT, 'api/build.mjs')]);
    const dir = mkdtempSync(join(tmpdir(), 'pcg-bundle-'));
    dirs.push(dir);
    const log = join(dir, 'log.ndjson');
    writeFileSync(
      log,
      ['a', 'b', 'c', 'a', 'c'].map((activity, i) => JSON.stringify({ caseId: `k${i % 2}`, activity, timestamp: new Date(Date.UTC(2025, 0, 1, i)).toISOString() })).join('\n'),
    );
    const bundled = execFileSync(process.execPath, [join(ROOT, 'dist/pcg.mjs'), 'graph', log], { encoding: 'utf8' });
    const sources = execFileSync(process.execPath, ['--import', 'tsx', join(ROOT, 'api/cli/run.ts'), 'graph', log], { encoding: 'utf8' });
    expect(JSON.parse(bundled).source).toMatchObject({ cases: 2, events: 5 });
    expect(bundled).toBe(sources);
  });
});

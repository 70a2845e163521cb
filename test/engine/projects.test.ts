import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { importLog } from '../../connectors/files/index.js';
import { Graphs, ProjectRegistry, type GraphVersionStore } from '../../engine/projects/index.js';

/** The project service without HTTP: one ingest path that applies, then announces. */
describe('the project registry', () => {
  const dirs: string[] = [];
  const registries: ProjectRegistry[] = [];
  afterEach(() => {
    for (const r of registries.splice(0)) r.close();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const fresh = () => {
    const dir = mkdtempSync(join(tmpdir(), 'pcg-projects-'));
    dirs.push(dir);
    const r = new ProjectRegistry(dir);
    registries.push(r);
    return { dir, registry: r };
  };
  const events = (n: number, from = 0) =>
    Array.from({ length: n }, (_, i) => ({ caseId: `c${from + i}`, activity: 'Open', timestamp: new Date(Date.UTC(2024, 0, 1) + (from + i) * 60_000).toISOString(), eventId: `e${from + i}` }));

  it('ingest applies a batch once per position and announces each new data version', () => {
    const { registry } = fresh();
    const seen: number[] = [];
    registry.changes.on('p1', (v: number) => seen.push(v));
    expect(registry.ingest('p1', { records: events(3) }, { source: 's', partition: 0, offset: 3 }).accepted).toBe(3);
    // The same position again: not applied, not announced.
    expect(registry.ingest('p1', { records: events(3) }, { source: 's', partition: 0, offset: 3 }).applied).toBe(false);
    // Only duplicates: applied, nothing accepted, not announced.
    expect(registry.ingest('p1', { records: events(3) }).accepted).toBe(0);
    expect(registry.ingest('p1', { records: events(2, 3) }).accepted).toBe(2);
    expect(seen).toEqual([1, 2]);
    expect(registry.store('p1').snapshot().tally.cases).toBe(5);
  });

  it('a file import through the target announces its batches, like any stream', async () => {
    const { dir, registry } = fresh();
    const file = join(dir, 'log.ndjson');
    writeFileSync(file, events(4).map((e) => JSON.stringify(e)).join('\n'));
    let announced = 0;
    registry.changes.on('p2', () => (announced += 1));
    const summary = await importLog(registry.target('p2'), file);
    expect(summary.accepted).toBe(4);
    expect(announced).toBe(1);
    expect(registry.store('p2').getMeta('format')).toBe('ndjson');
  });

  it('serves one document per data version from the version store, built once', async () => {
    const { registry } = fresh();
    const kept = new Map<string, string>();
    let puts = 0;
    const versions: GraphVersionStore = {
      get: (p, v) => kept.get(`${p}:${v}`),
      put: (p, v, json) => {
        puts += 1;
        kept.set(`${p}:${v}`, json);
      },
    };
    const graphs = new Graphs(registry, versions);
    registry.ingest('p3', { records: events(2) });
    const [a, b] = await Promise.all([graphs.current('p3'), graphs.current('p3')]);
    expect(a.json).toBe(b.json);
    expect(puts).toBe(1);
    expect(JSON.parse(a.json).source.cases).toBe(2);
    expect(graphs.version('p3', 1)?.etag).toBe('"1"');
  });
});

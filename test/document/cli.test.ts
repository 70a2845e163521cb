import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../api/cli/main.js';
import { ProjectStore } from '../../engine/index.js';
import { freshDir } from '../engine/helpers.js';

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => void out.push(t), err: (t: string) => void err.push(t) }, out: () => out.join(''), err: () => err.join('') };
}

const events = [
  { caseId: 'c1', activity: 'a', timestamp: '2025-01-06T09:00:00Z', resource: 'r1' },
  { caseId: 'c1', activity: 'b', timestamp: '2025-01-06T10:00:00Z', resource: 'r2' },
  { caseId: 'c2', activity: 'a', timestamp: '2025-01-06T09:30:00Z', resource: 'r1' },
  { caseId: 'c2', activity: 'b', timestamp: '2025-01-07T09:30:00Z', resource: 'r2' },
];

describe('pcg graph, schema and validate', () => {
  it('prints the document of an NDJSON file and of a project, and validates it', async () => {
    const dir = freshDir();
    const file = join(dir, 'log.ndjson');
    writeFileSync(file, events.map((e) => JSON.stringify(e)).join('\n'));
    const c = capture();
    expect(await main(['graph', file], c.io)).toBe(0);
    const fromFile = JSON.parse(c.out());
    expect(fromFile.source).toMatchObject({ cases: 2, events: 4, time_basis: 'clock' });
    expect(fromFile.model.process_tree).toBe("->( 'a', 'b' )");

    const store = ProjectStore.open(join(dir, 'state.sqlite'));
    store.apply({ records: events });
    store.close();
    const out = join(dir, 'doc.json');
    expect(await main(['graph', '--project-dir', dir, '--time-basis', 'working', '--calendar', '{"timeZone":"UTC"}', '--out', out], capture().io)).toBe(0);
    const doc = JSON.parse(readFileSync(out, 'utf8'));
    expect(doc.source.time_basis).toBe('working');
    // c2 waits from Monday 09:30 to Tuesday 09:30: 8 working hours.
    expect(doc.edges.find((e: { id: string }) => e.id === 'a->b').slow_wait_hours).toBeCloseTo(8, 0);

    const v = capture();
    expect(await main(['validate', out], v.io)).toBe(0);
    expect(v.out()).toBe('valid\n');
    doc.edges[0].share_of_from = 1.5;
    doc.nodes[1].colour = 'red';
    delete doc.source.cases;
    writeFileSync(out, JSON.stringify(doc));
    const bad = capture();
    expect(await main(['validate', out], bad.io)).toBe(1);
    expect(bad.out().trim().split('\n').sort()).toEqual([
      '/edges/0/share_of_from: Too big: expected number to be <=1',
      '/nodes/1/colour: field not allowed here',
      '/source/cases: Invalid input: expected number, received undefined',
    ]);
  });

  it('prints the JSON schema and refuses bad arguments', async () => {
    const c = capture();
    expect(await main(['schema'], c.io)).toBe(0);
    const schema = JSON.parse(c.out());
    expect(schema.properties.schema.const).toBe('service.process-context-graph');
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toContain('open_questions');
    expect(await main(['graph'], capture().io)).toBe(2);
    expect(await main(['graph', 'x.xes', '--time-basis', 'lunar'], capture().io)).toBe(2);
    expect(await main(['graph', '--project-dir', '/nonexistent/pcg'], capture().io)).toBe(2);
  });
});

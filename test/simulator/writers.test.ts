import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { checkEvent, type WireEvent } from '../../engine/index.js';
import { createSimulation, simulate, writeLog, writeSimulation } from '../../connectors/simulator/index.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});
function tempFile(name: string): string {
  dir ??= mkdtempSync(join(tmpdir(), 'pcg-sim-'));
  return join(dir, name);
}

/** A tiny RFC 4180 reader: quoted fields, doubled quotes, newlines inside quotes. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field || row.length) rows.push([...row, field]);
  return rows;
}

const odd: WireEvent[] = [
  { caseId: 'c,1', activity: 'Say "hi"', timestamp: '2025-01-01T00:00:00.000Z', eventId: 'e1', resource: ' lead space', attributes: { note: 'line\nbreak', n: 3, x: 1.5, ok: true } },
  { caseId: 'c,1', activity: '<&>', timestamp: Date.UTC(2025, 0, 1, 1), eventId: 'e2', attributes: { note: "it's & <ok>" } },
];

describe('writers', () => {
  it('NDJSON: one wire event per line, each passing checkEvent, same as the generator', async () => {
    const file = tempFile('log.ndjson');
    const options = { model: 'order-to-cash', cases: 200, seed: 4, lateShare: 0.05, duplicateShare: 0.05 };
    const result = await writeSimulation(options, 'ndjson', file);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines.length).toBe(result.events);
    const parsed = lines.map((l) => JSON.parse(l) as unknown);
    expect(parsed.filter((p) => !checkEvent(p).ok)).toEqual([]);
    expect(parsed).toEqual([...simulate(options)]);
  });

  it('CSV: fixed columns per model, ISO UTC times, round trip through a parser', async () => {
    const file = tempFile('log.csv');
    const options = { model: 'claims', cases: 150, seed: 4 };
    await writeSimulation(options, 'csv', file);
    const [header, ...rows] = parseCsv(readFileSync(file, 'utf8'));
    expect(header).toEqual(['case:concept:name', 'concept:name', 'time:timestamp', 'org:resource', 'event_id', 'claimType', 'claimAmount', 'policyYears', 'goldCustomer', 'approvedAmount']);
    const events = [...simulate(options)];
    expect(rows.length).toBe(events.length);
    rows.forEach((row, i) => {
      const e = events[i]!;
      expect(row.slice(0, 5)).toEqual([e.caseId, e.activity, e.timestamp, e.resource, e.eventId]);
      header!.slice(5).forEach((column, k) => expect(row[5 + k]).toBe(e.attributes?.[column] === undefined ? '' : String(e.attributes[column])));
    });
  });

  it('CSV quoting survives commas, quotes, newlines and edge spaces; columns are discovered when not given', async () => {
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (c: Buffer) => chunks.push(c));
    await writeLog(odd, 'csv', out);
    const rows = parseCsv(Buffer.concat(chunks).toString('utf8'));
    expect(rows[0]).toEqual(['case:concept:name', 'concept:name', 'time:timestamp', 'org:resource', 'event_id', 'note', 'n', 'x', 'ok']);
    expect(rows[1]).toEqual(['c,1', 'Say "hi"', '2025-01-01T00:00:00.000Z', ' lead space', 'e1', 'line\nbreak', '3', '1.5', 'true']);
    expect(rows[2]).toEqual(['c,1', '<&>', '2025-01-01T01:00:00.000Z', '', 'e2', "it's & <ok>", '', '', '']);
    await expect(writeLog(odd, 'csv', new PassThrough(), { attributes: ['note'] })).rejects.toThrow(/not a CSV column/);
  });

  it('XES: well-formed IEEE XES with one trace per case, typed attributes and escaped text', async () => {
    const file = tempFile('log.xes');
    const options = { model: 'helpdesk', cases: 120, seed: 8, lateShare: 0.05, duplicateShare: 0.02 };
    const simulation = createSimulation(options);
    const result = await writeLog(simulation.events(), 'xes', file, simulation.writeOptions());
    const script = `
import sys, json, xml.etree.ElementTree as ET
ns = {'x': 'http://www.xes-standard.org/'}
root = ET.parse(sys.argv[1]).getroot()
traces = root.findall('x:trace', ns)
out = {'root': root.tag, 'version': root.get('xes.version'), 'traces': len(traces), 'events': sum(len(t.findall('x:event', ns)) for t in traces),
       'tags': sorted({c.tag.split('}')[1] for t in traces for e in t.findall('x:event', ns) for c in e}),
       'first': {c.get('key'): [c.tag.split('}')[1], c.get('value')] for c in traces[0].findall('x:event', ns)[0]},
       'names': len({t.find('x:string', ns).get('value') for t in traces})}
print(json.dumps(out))`;
    const info = JSON.parse(execFileSync('python3', ['-c', script, file], { encoding: 'utf8' })) as Record<string, unknown>;
    expect(info).toMatchObject({ root: '{http://www.xes-standard.org/}log', version: '1849-2016', traces: 120, names: 120, events: result.events });
    expect(info.tags).toEqual(['boolean', 'date', 'int', 'string']);
    expect((info.first as Record<string, unknown>)['vip']).toEqual(['boolean', expect.stringMatching(/^(true|false)$/)]);
    expect((info.first as Record<string, unknown>)['time:timestamp']).toEqual(['date', expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)]);

    const escaped = tempFile('odd.xes');
    await writeLog(odd, 'xes', escaped, { attributeTypes: { x: 'float', n: 'int' } });
    const back = JSON.parse(
      execFileSync('python3', ['-c', `import sys, json, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
print(json.dumps([[[c.tag.split('}')[1], c.get('key'), c.get('value')] for c in e] for e in root.iter('{http://www.xes-standard.org/}event')]))`, escaped], { encoding: 'utf8' }),
    ) as string[][][];
    expect(back[0]).toEqual([
      ['string', 'concept:name', 'Say "hi"'],
      ['date', 'time:timestamp', '2025-01-01T00:00:00.000Z'],
      ['string', 'org:resource', ' lead space'],
      ['string', 'event_id', 'e1'],
      ['string', 'note', 'line\nbreak'],
      ['int', 'n', '3'],
      ['float', 'x', '1.5'],
      ['boolean', 'ok', 'true'],
    ]);
    expect(back[1]![0]).toEqual(['string', 'concept:name', '<&>']);
    expect(back[1]![3]).toEqual(['string', 'note', "it's & <ok>"]);
  });

  it('XES writes each trace as soon as its case is complete (memory stays flat)', async () => {
    const simulation = createSimulation({ model: 'claims', cases: 2000, seed: 3 });
    const out = new PassThrough();
    let written = 0;
    let emitted = 0;
    let maxBehind = 0;
    out.on('data', (c: Buffer) => (written += (c.toString().match(/<trace>/g) ?? []).length));
    const counted = (function* () {
      for (const e of simulation.events()) {
        emitted++;
        if (emitted % 1000 === 0) maxBehind = Math.max(maxBehind, emitted / 11 - written);
        yield e;
      }
    })();
    await writeLog(counted, 'xes', out, simulation.writeOptions());
    expect(written).toBe(2000);
    // Traces leave while the log is still being generated, not all at the end.
    expect(maxBehind).toBeLessThan(400);
  });
});

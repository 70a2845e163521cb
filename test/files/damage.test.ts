import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { checkLog, openLog } from '../../connectors/files/index.js';
import { simulate, writeSimulation } from '../../connectors/simulator/index.js';
import { collect, gunzipPrefix, scratch } from './helpers.js';
import { readFileSync } from 'node:fs';

/**
 * checkLog: one read of the whole file that applies nothing, finding what an
 * upload must refuse (unless asked to keep the complete events): a .gz cut
 * short, XML ending inside an element, a last line torn off.
 */


const csv = 'case,activity,time,amount\n1,a,2024-01-01T00:00:00Z,10\n1,b,2024-01-01T01:00:00Z,20\n2,a,2024-01-02T00:00:00Z,30\n';

describe('checkLog', () => {
  it('finds no damage in whole files, with or without a final line end', async () => {
    const s = scratch();
    for (const [name, text] of [
      ['whole.csv', csv],
      ['no-end.csv', csv.trimEnd()],
      ['whole.ndjson', '{"caseId":"1","activity":"a","timestamp":0}\n{"caseId":"1","activity":"b","timestamp":1}'],
    ] as const) {
      const check = await checkLog(s.file(name, text));
      expect(check.damage, name).toBeUndefined();
      expect(check.rejected).toBe(0);
    }
    // A bad row in the middle is a rejection, not damage.
    const bad = await checkLog(s.file('bad-row.csv', csv.replace('1,b,2024-01-01T01:00:00Z,20', '1,b,whenever,20')));
    expect(bad).toMatchObject({ records: 2, rejected: 1, damage: undefined });
  });

  it('reports a torn last line of a CSV or NDJSON file and XML that ends inside an element', async () => {
    const s = scratch();
    const torn = await checkLog(s.file('torn.csv', csv + '2,b,2024-01-0'));
    expect(torn.damage).toEqual({ location: 'line 5', reason: 'the last line is cut off (no line end): row has 3 fields, the header has 4' });
    const three = 'case,activity,time\n1,a,2024-01-01T00:00:00Z\n2,b,2024-01-0';
    expect((await checkLog(s.file('torn2.csv', three))).damage?.reason).toBe("the last line is cut off (no line end): cannot read timestamp '2024-01-0' in column 'time'");
    expect((await checkLog(s.file('quote.csv', csv + '2,"b'))).damage?.reason).toBe('unterminated quoted field at the end of the file');
    const nd = await checkLog(s.file('torn.ndjson', '{"caseId":"1","activity":"a","timestamp":0}\n{"caseId":"1","activ'));
    expect(nd.damage).toMatchObject({ location: 'line 2', reason: expect.stringMatching(/^the last line is cut off \(no line end\): not JSON/) });

    const xesFile = `${s.dir}/full.xes`;
    await writeSimulation({ model: 'claims', cases: 20, seed: 2 }, 'xes', xesFile);
    const xes = readFileSync(xesFile, 'utf8');
    expect((await checkLog(xesFile)).damage).toBeUndefined();
    const cut = await checkLog(s.file('cut.xes', xes.slice(0, Math.floor(xes.length / 2))));
    expect(cut.damage?.reason).toMatch(/^truncated XML: /);
    expect(cut.records).toBeGreaterThan(0);
  });

  it('reports a .gz cut short, whatever the format; a corrupt .gz is an error', async () => {
    const s = scratch();
    const file = `${s.dir}/log.csv`;
    await writeSimulation({ model: 'order-to-cash', cases: 400, seed: 4 }, 'csv', file);
    const whole = readFileSync(file);
    const gz = gzipSync(whole);
    expect((await checkLog(s.file('whole.csv.gz', gz))).damage).toBeUndefined();
    const half = gz.subarray(0, Math.floor(gz.length * 0.6));
    const check = await checkLog(s.file('half.csv.gz', half));
    expect(check.damage).toEqual({ location: 'end of file', reason: 'the compressed file ends early (truncated .gz)' });

    // Imported anyway, it keeps exactly the complete lines, unchanged; the line the cut went through is refused.
    const prefix = await gunzipPrefix(half);
    const complete = prefix.slice(0, prefix.lastIndexOf('\n') + 1);
    const kept = await collect(await openLog(s.file('half-again.csv.gz', half)));
    const reference = await collect(await openLog(s.file('complete.csv', complete)));
    const strip = (r: Record<string, unknown>) => ({ ...r, eventId: undefined });
    expect(kept.records.map(strip)).toEqual(reference.records.map(strip));
    expect(kept.rejected.map((r) => r.reason)).toEqual(['cut off where the compressed file ends', 'the compressed file ends early (truncated .gz)']);

    const nd = gzipSync(Buffer.from([...simulate({ model: 'claims', cases: 300, seed: 1 })].map((e) => JSON.stringify(e)).join('\n')));
    expect((await checkLog(s.file('half.ndjson.gz', nd.subarray(0, nd.length >> 1)))).damage?.reason).toBe('the compressed file ends early (truncated .gz)');

    const corrupt = Buffer.from(gz);
    for (let i = 200; i < 260; i++) corrupt[i] = corrupt[i]! ^ 0x5a;
    await expect(checkLog(s.file('corrupt.csv.gz', corrupt))).rejects.toMatchObject({ name: 'FileImportError', code: 'binary_file' });
  });
});

import { describe, expect, it } from 'vitest';
import { checkEvent } from '../../engine/index.js';
import { inspectLog, lightCheck, openLog, parseTimestamp, zoneReader } from '../../connectors/files/index.js';
import { collect, scratch, utc } from './helpers.js';

const pm4pyExport = `,case:concept:name,concept:name,time:timestamp,org:resource,cost,note,case:creator
0,c1,Register,2024-01-01 09:00:00+01:00,ann,12.5,"hello, ""world""",Nitro
1,c1,"Check
twice",2024-01-01 10:00:00+01:00,bob,7,,Nitro
2,c2,Register,2024-01-02 09:00:00+01:00,,-3e2,x,Nitro
`;

describe('CSV reader', () => {
  it('reads a pm4py export: quoted fields, quoted newlines, index column ignored, numbers parsed', async () => {
    const s = scratch();
    const source = await openLog(s.file('log.csv', pm4pyExport));
    expect(source.format).toBe('csv');
    expect(source.caseNotion).toBe('case:concept:name');
    const { records, locations, rejected } = await collect(source);
    expect(rejected).toEqual([]);
    expect(locations).toEqual(['line 2', 'line 3', 'line 5']);
    const prefix = source.sourceId.slice(0, 12);
    expect(records).toEqual([
      { caseId: 'c1', activity: 'Register', timestamp: utc('2024-01-01T08:00:00Z'), eventId: `${prefix}:0000000001`, resource: 'ann', attributes: { cost: 12.5, note: 'hello, "world"', 'case:creator': 'Nitro' } },
      { caseId: 'c1', activity: 'Check\ntwice', timestamp: utc('2024-01-01T09:00:00Z'), eventId: `${prefix}:0000000002`, resource: 'bob', attributes: { cost: 7, 'case:creator': 'Nitro' } },
      { caseId: 'c2', activity: 'Register', timestamp: utc('2024-01-02T08:00:00Z'), eventId: `${prefix}:0000000003`, attributes: { cost: -300, note: 'x', 'case:creator': 'Nitro' } },
    ]);
    for (const r of records) {
      expect(checkEvent(r).ok).toBe(true);
      expect(lightCheck(r)).toBeUndefined();
    }
    expect(source.extra()).toMatchObject({ delimiter: ',', columns: { case: 'case:concept:name', activity: 'concept:name', timestamp: 'time:timestamp', resource: 'org:resource', start_timestamp: null, attributes: ['cost', 'note', 'case:creator'] } });
  });

  it('sniffs ; tab and | and finds the usual column names', async () => {
    const s = scratch();
    const rows = [
      ['Case ID', 'Activity', 'Complete Timestamp', 'Resource'],
      ['1', 'A', '2014/10/22 11:15:41.000', 'r1'],
      ['1', 'B', '2014/10/22 11:20:00.000', 'r2'],
    ];
    for (const d of [';', '\t', '|', ',']) {
      const source = await openLog(s.file(`d${d.charCodeAt(0)}.csv`, rows.map((r) => r.join(d)).join('\r\n')));
      const { records } = await collect(source);
      expect(source.extra()).toMatchObject({ delimiter: d });
      expect(records.map((r) => [r.caseId, r.activity, r.timestamp, r.resource])).toEqual([
        ['1', 'A', utc('2014-10-22T11:15:41Z'), 'r1'],
        ['1', 'B', utc('2014-10-22T11:20:00Z'), 'r2'],
      ]);
    }
    const other = await openLog(s.file('o.csv', 'CaseID,activity,end_time,x\nk,A,1700000000,1\n'));
    expect(other.extra()).toMatchObject({ columns: { case: 'CaseID', activity: 'activity', timestamp: 'end_time' } });
    const [only] = (await collect(other)).records;
    expect(only).toMatchObject({ caseId: 'k', timestamp: 1_700_000_000_000, attributes: { x: 1 } });
  });

  it('takes explicit columns, a start time column and a time zone', async () => {
    const s = scratch();
    const text = 'job;step;began;ended;who\nj1;cut;2012-03-25 01:30:00;2012-03-25 03:30:00;ann\nj1;mill;;2012-07-01 12:00:00;\n';
    const source = await openLog(s.file('p.csv', text), { caseColumn: 'job', activityColumn: 'step', timestampColumn: 'ended', startTimestampColumn: 'began', resourceColumn: 'who', timezone: 'Europe/Amsterdam' });
    const { records } = await collect(source);
    // 25 March 2012: Amsterdam moves from +01:00 to +02:00 at 02:00 local.
    expect(records).toMatchObject([
      { caseId: 'j1', activity: 'cut', timestamp: utc('2012-03-25T01:30:00Z'), resource: 'ann', attributes: { start_timestamp: '2012-03-25T00:30:00.000Z' } },
      { caseId: 'j1', activity: 'mill', timestamp: utc('2012-07-01T10:00:00Z') },
    ]);
    expect(records[1]).not.toHaveProperty('resource');
    expect(records[1]).not.toHaveProperty('attributes');
    const auto = await openLog(s.file('q.csv', 'case_id,start_time,end_time,Activity,Resource\nCase1,2012-01-30T04:24:00,2012-01-30T10:43:00,Turning & Milling,ID4932\n'));
    expect(auto.extra()).toMatchObject({ columns: { case: 'case_id', activity: 'Activity', timestamp: 'end_time', start_timestamp: 'start_time', resource: 'Resource' } });
    expect((await collect(auto)).records[0]).toMatchObject({ timestamp: utc('2012-01-30T10:43:00Z'), attributes: { start_timestamp: '2012-01-30T04:24:00.000Z' } });
    await expect(openLog(s.file('z.csv', 'case,activity,timestamp\n'), { timezone: 'Mars/Olympus' })).rejects.toMatchObject({ code: 'invalid_option' });
  });

  it('rejects rows it cannot read with line and reason, and keeps the others', async () => {
    const s = scratch();
    const text = ['case,activity,timestamp,x', 'c1,A,2024-01-01T00:00:00Z,1', 'c1,B,not a time,2', 'c1,C,2024-01-01T02:00:00Z', ',D,2024-01-01T03:00:00Z,4', 'c1,,2024-01-01T03:00:00Z,4', '', 'c2,E,2024-02-30 10:00,5', 'c2,F,,6', 'c2,G,22-10-2014 11:15,7', 'c2,H,"2024-01-05T00:00:00Z,8'].join('\n');
    const { records, rejected } = await collect(await openLog(s.file('bad.csv', text)));
    expect(records.map((r) => [r.activity, r.timestamp])).toEqual([
      ['A', utc('2024-01-01T00:00:00Z')],
      ['G', utc('2014-10-22T11:15:00Z')],
    ]);
    expect(rejected.map((r) => [r.location, r.reason])).toEqual([
      ['line 3', "cannot read timestamp 'not a time' in column 'timestamp'"],
      ['line 4', 'row has 3 fields, the header has 4'],
      ['line 5', "empty case id in column 'case'"],
      ['line 6', "empty activity in column 'activity'"],
      ['line 8', "cannot read timestamp '2024-02-30 10:00' in column 'timestamp'"],
      ['line 9', "empty timestamp in column 'timestamp'"],
      ['line 11', 'unterminated quoted field at the end of the file'],
    ]);
    expect(rejected[0]!.payload).toBe('c1,B,not a time,2');
    const summary = await inspectLog(s.file('bad.csv', text));
    expect(summary).toMatchObject({ cases: 2, events: 2, rejected: 7 });
    expect(summary.rejections[0]).toEqual({ location: 'line 3', reason: "cannot read timestamp 'not a time' in column 'timestamp'" });
  });

  it('says which column is missing, and when the delimiter is wrong', async () => {
    const s = scratch();
    await expect(openLog(s.file('m.csv', 'case,activity,when\nc,A,2024-01-01\n'))).rejects.toMatchObject({
      code: 'missing_column',
      message: expect.stringMatching(/no timestamp column found .*--timestamp.*Columns: "case", "activity", "when"/),
    });
    await expect(openLog(s.file('m2.csv', 'case,activity,timestamp\n'), { caseColumn: 'Case' })).rejects.toMatchObject({ code: 'missing_column', message: expect.stringMatching(/no column 'Case' \(given for the case\)/) });
    await expect(openLog(s.file('w.csv', 'case,activity,timestamp\nc,A,2024-01-01\n'), { delimiter: ';' })).rejects.toMatchObject({
      code: 'missing_column',
      message: expect.stringMatching(/wrong delimiter\? \(delimiter used: ';'; try --delimiter ','\)/),
    });
  });

  it('reads .csv.gz to the same events', async () => {
    const s = scratch();
    const a = await collect(await openLog(s.file('a.csv', pm4pyExport)));
    const b = await collect(await openLog(s.file('a.csv.gz', pm4pyExport, { gzip: true })));
    expect(b.records.map(({ eventId: _, ...r }) => r)).toEqual(a.records.map(({ eventId: _, ...r }) => r));
  });
});

describe('parseTimestamp', () => {
  const utcZone = zoneReader('UTC');
  it.each([
    ['2014-10-22T11:15:41Z', '2014-10-22T11:15:41.000Z'],
    ['2014-10-22T11:15:41.123456+02:00', '2014-10-22T09:15:41.123Z'],
    ['2011-10-11 13:45:40.276000+02:00', '2011-10-11T11:45:40.276Z'],
    ['2012-04-03 16:55:38', '2012-04-03T16:55:38.000Z'],
    ['2014/10/22 11:15:41.000', '2014-10-22T11:15:41.000Z'],
    ['2014-10-22', '2014-10-22T00:00:00.000Z'],
    ['2014-10-22T11:15', '2014-10-22T11:15:00.000Z'],
    ['2014-10-22T11:15:41-0530', '2014-10-22T16:45:41.000Z'],
    ['22-10-2014 11:15', '2014-10-22T11:15:00.000Z'],
    ['22.10.2014', '2014-10-22T00:00:00.000Z'],
    ['10/22/2014 11:15:00', '2014-10-22T11:15:00.000Z'],
    ['1413976541', '2014-10-22T11:15:41.000Z'],
    ['1413976541123', '2014-10-22T11:15:41.123Z'],
    ['1413976541.5', '2014-10-22T11:15:41.500Z'],
  ])('%s', (text, iso) => {
    expect(new Date(parseTimestamp(text, utcZone)).toISOString()).toBe(iso);
  });
  it('refuses what is not a time', () => {
    for (const t of ['', 'soon', '2014-13-01', '2014-02-29T00:00:00Z', '2014-10-22T25:00:00', '32/10/2014']) expect(parseTimestamp(t, utcZone)).toBeNaN();
  });
  it('reads zone-less times in an IANA zone, DST included', () => {
    const ams = zoneReader('Europe/Amsterdam');
    expect(new Date(parseTimestamp('2024-01-15 12:00:00', ams)).toISOString()).toBe('2024-01-15T11:00:00.000Z');
    expect(new Date(parseTimestamp('2024-07-15 12:00:00', ams)).toISOString()).toBe('2024-07-15T10:00:00.000Z');
    expect(new Date(parseTimestamp('2024-07-15 12:00:00Z', ams)).toISOString()).toBe('2024-07-15T12:00:00.000Z');
  });
});

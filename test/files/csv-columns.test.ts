import { describe, expect, it } from 'vitest';
import { openLog, type ImportOptions } from '../../connectors/files/index.js';
import { collect, scratch, utc } from './helpers.js';

/** The columns found and the (case, activity, time, resource) of every event read. */
async function read(path: string, options: ImportOptions = {}) {
  const source = await openLog(path, options);
  const { records, rejected } = await collect(source);
  const columns = (source.extra() as { columns: Record<string, unknown> }).columns;
  return { source, columns, rejected, events: records.map((r) => [r.caseId, r.activity, r.timestamp, r.resource ?? null]), records };
}

describe('CSV columns of the process-monitoring benchmarks, found without flags', () => {
  it('CaseID, ActivityID, CompleteTimestamp: numeric activity codes are the activity', async () => {
    const s = scratch();
    const text = 'CaseID,ActivityID,CompleteTimestamp\n2,1,2012-04-03 16:55:38\n2,8,2012-04-03 16:55:53\n3,1,2010-10-29 18:14:06\n';
    const { columns, events, records, rejected, source } = await read(s.file('helpdesk.csv', text));
    expect(source.caseNotion).toBe('CaseID');
    expect(source.caseNotionReason).toBe('column "CaseID" found by its name');
    expect(columns).toEqual({ case: 'CaseID', activity: 'ActivityID', timestamp: 'CompleteTimestamp', resource: null, start_timestamp: null, attributes: [] });
    expect(rejected).toEqual([]);
    expect(events).toEqual([
      ['2', '1', utc('2012-04-03T16:55:38Z'), null],
      ['2', '8', utc('2012-04-03T16:55:53Z'), null],
      ['3', '1', utc('2010-10-29T18:14:06Z'), null],
    ]);
    expect(records.every((r) => r.attributes === undefined)).toBe(true);
  });

  it.each([
    ['Case ID;Activity ID;Complete Timestamp;Resource', 'Case ID', 'Activity ID', 'Complete Timestamp', 'Resource', null],
    ['case_id,activity_id,end_timestamp,start_timestamp,resource_id', 'case_id', 'activity_id', 'end_timestamp', 'resource_id', 'start_timestamp'],
    ['CaseId\tActivityName\tEndTimestamp\tStartTimestamp\tResource', 'CaseId', 'ActivityName', 'EndTimestamp', 'Resource', 'StartTimestamp'],
    ['caseid,task,role,start_timestamp,end_timestamp,user', 'caseid', 'task', 'end_timestamp', 'user', 'start_timestamp'],
    ['CASE.ID|Activity|Timestamp|User ID', 'CASE.ID', 'Activity', 'Timestamp', 'User ID', null],
    ['Case Key,Activity Label,Event Time', 'Case Key', 'Activity Label', 'Event Time', null, null],
  ])('%s', async (header, caseCol, activity, timestamp, resource, start) => {
    const s = scratch();
    const delimiter = [';', '\t', '|', ','].find((d) => header.includes(d))!;
    const names = header.split(delimiter);
    const value = (name: string, row: number) =>
      name === caseCol ? `c${row % 2}` : name === activity ? `A${row}` : name === timestamp ? `2024-01-0${row + 1} 10:00:00` : name === start ? `2024-01-0${row + 1} 09:30:00` : name === resource ? `r${row}` : 'x';
    const text = [header, ...[0, 1, 2].map((row) => names.map((n) => value(n, row)).join(delimiter))].join('\n');
    const { columns, events, records } = await read(s.file('bench.csv', text));
    expect(columns).toMatchObject({ case: caseCol, activity, timestamp, resource, start_timestamp: start });
    expect(events).toEqual([0, 1, 2].map((row) => [`c${row % 2}`, `A${row}`, utc(`2024-01-0${row + 1}T10:00:00Z`), resource ? `r${row}` : null]));
    if (start) expect(records[0]!.attributes).toMatchObject({ start_timestamp: '2024-01-01T09:30:00.000Z' });
  });

  it('a named activity column wins over a numeric code; the code stays as a number attribute', async () => {
    const s = scratch();
    const text = 'Case ID,ActivityID,Activity,Complete Timestamp\n7,3,Assign seriousness,2012-10-09 14:50:17\n';
    const { columns, events, records } = await read(s.file('both.csv', text));
    expect(columns).toMatchObject({ case: 'Case ID', activity: 'Activity', timestamp: 'Complete Timestamp', attributes: ['ActivityID'] });
    expect(events).toEqual([['7', 'Assign seriousness', utc('2012-10-09T14:50:17Z'), null]]);
    expect(records[0]!.attributes).toEqual({ ActivityID: 3 });
  });

  it('flags win, and a column given for one role is not guessed for another', async () => {
    const s = scratch();
    const path = s.file('flags.csv', 'CaseID,ActivityID,Activity,StartTimestamp,CompleteTimestamp,Resource\nk,4,Close,2024-05-01 08:00,2024-05-01 09:00,ann\n');
    const coded = await read(path, { activityColumn: 'ActivityID' });
    expect(coded.events).toEqual([['k', '4', utc('2024-05-01T09:00:00Z'), 'ann']]);
    expect(coded.columns.attributes).toEqual(['Activity']);
    const byWho = await read(path, { activityColumn: 'Resource' });
    expect(byWho.columns).toMatchObject({ activity: 'Resource', resource: null });
    expect(byWho.events).toEqual([['k', 'ann', utc('2024-05-01T09:00:00Z'), null]]);
    const byStart = await read(path, { timestampColumn: 'StartTimestamp' });
    expect(byStart.columns).toMatchObject({ timestamp: 'StartTimestamp', start_timestamp: null, attributes: ['ActivityID', 'CompleteTimestamp'] });
    expect(byStart.events).toEqual([['k', 'Close', utc('2024-05-01T08:00:00Z'), 'ann']]);
    expect(byStart.source.caseNotionReason).toBe('column "CaseID" found by its name');
    expect((await read(path, { caseColumn: 'Resource' })).source.caseNotionReason).toBe('column "Resource" as given');
  });

  it('without a time column but with dates under another name it names what it looked for', async () => {
    const s = scratch();
    await expect(openLog(s.file('no-time.csv', 'CaseID,ActivityID,When\n1,2,3/1/2024 10:00\n'))).rejects.toMatchObject({
      code: 'missing_column',
      message: expect.stringMatching(/^no timestamp column found \(looked for time:timestamp, completetimestamp, endtimestamp, .*\), but "When" holds dates; name it with --timestamp\. Columns: "CaseID", "ActivityID", "When"\.$/),
    });
    // A named timestamp column that is absent is refused whatever the rows hold.
    await expect(openLog(s.file('named.csv', 'CaseID,ActivityID,Step\n1,2,3\n'), { timestampColumn: 'When' })).rejects.toMatchObject({ code: 'missing_column', message: expect.stringMatching(/^no column 'When' \(given for the timestamp\)/) });
  });

  it('without any time a log of order only is read, each event at NO_CLOCK_TIME in file order; a lone start column is the clock', async () => {
    const s = scratch();
    const { columns, events, rejected, records } = await read(s.file('order.csv', 'CaseID,ActivityID,Step\n1,B,1\n2,A,1\n1,A,2\n'));
    expect(columns).toEqual({ case: 'CaseID', activity: 'ActivityID', timestamp: null, resource: null, start_timestamp: null, attributes: ['Step'] });
    expect(rejected).toEqual([]);
    expect(events).toEqual([
      ['1', 'B', 0, null],
      ['2', 'A', 0, null],
      ['1', 'A', 0, null],
    ]);
    // Ties at one instant keep file order by the ordinal event ids.
    expect(records.map((r) => r.eventId as string).every((id, i, all) => i === 0 || all[i - 1]! < id)).toBe(true);
    const started = await read(s.file('start.csv', 'case,activity,start_time\nk,Close,2024-05-01 08:00:00\n'));
    expect(started.columns).toMatchObject({ timestamp: 'start_time', start_timestamp: null });
    expect(started.events).toEqual([['k', 'Close', utc('2024-05-01T08:00:00Z'), null]]);
  });
});

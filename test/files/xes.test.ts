import { describe, expect, it } from 'vitest';
import { checkEvent } from '../../engine/index.js';
import { FileImportError, importLog, inspectLog, lightCheck, openLog } from '../../connectors/files/index.js';
import { collect, scratch, utc } from './helpers.js';

const header = `<?xml version="1.0" encoding="UTF-8" ?>
<!-- written by hand for the tests -->
<log xes.version="1.0" xmlns="http://www.xes-standard.org/">
  <extension name="Concept" prefix="concept" uri="http://www.xes-standard.org/concept.xesext"/>
  <global scope="trace"><string key="concept:name" value="UNKNOWN"/></global>
  <global scope="event">
    <string key="concept:name" value="UNKNOWN"/>
    <string key="lifecycle:transition" value="complete"/>
  </global>
  <classifier name="Activity" keys="concept:name"/>
  <classifier name="Full" keys="concept:name lifecycle:transition"/>
  <classifier name="Who" keys="'org:resource'"/>
  <string key="concept:name" value="a log-level attribute, ignored"/>
`;

const log = `${header}
  <trace>
    <string key="concept:name" value="case &amp; 1"/>
    <date key="deadline" value="2024-03-01T10:00:00.000+01:00"/>
    <int key="amount" value="1200"/>
    <event>
      <string key="concept:name" value="Register"/>
      <string key="lifecycle:transition" value="start"/>
      <string key="org:resource" value="ann"/>
      <date key="time:timestamp" value="2024-02-01T09:00:00.000+01:00"/>
      <float key="cost" value="12.5"/>
      <boolean key="urgent" value="true"/>
      <id key="identity:id" value="e-1"/>
      <list key="tags"><values><string key="t" value="x"/></values></list>
      <container key="box"><string key="inner" value="y"/></container>
      <string key="note" value="with meta"><string key="meta" value="skipped"/></string>
    </event>
    <event>
      <string key="concept:name" value="Register"/>
      <string key="lifecycle:transition" value="COMPLETE"/>
      <string key="org:resource" value="ann"/>
      <date key="time:timestamp" value="2024-02-01T09:30:00Z"/>
    </event>
    <event>
      <date key="time:timestamp" value="2024-02-01T09:30:00Z"/>
      <string key="concept:name" value="Check"/>
    </event>
  </trace>
  <trace>
    <event>
      <string key="concept:name" value="Register"/>
      <date key="time:timestamp" value="2024-02-02T08:00:00"/>
      <string key="lifecycle:transition" value="complete"/>
    </event>
  </trace>
</log>
`;

describe('XES reader', () => {
  it('maps traces, events and attributes of every type', async () => {
    const s = scratch();
    // Every event a step, so each maps to a record of its own (pairing is the next test's).
    const source = await openLog(s.file('log.xes', log), { lifecycle: 'all' });
    expect(source.format).toBe('xes');
    expect(source.caseNotion).toBe('trace');
    const { records, locations, rejected } = await collect(source);
    expect(rejected).toEqual([]);
    expect(locations).toEqual(['trace 1 event 1', 'trace 1 event 2', 'trace 1 event 3', 'trace 2 event 1']);
    const prefix = source.sourceId.slice(0, 12);
    expect(records[0]).toEqual({
      caseId: 'case & 1',
      activity: 'Register',
      timestamp: utc('2024-02-01T08:00:00Z'),
      eventId: `${prefix}:0000000001`,
      resource: 'ann',
      attributes: {
        'lifecycle:transition': 'start',
        cost: 12.5,
        urgent: true,
        'identity:id': 'e-1',
        note: 'with meta',
        'case:deadline': '2024-03-01T09:00:00.000Z',
        'case:amount': 1200,
      },
    });
    expect(records[2]).toMatchObject({ caseId: 'case & 1', activity: 'Check', eventId: `${prefix}:0000000003` });
    // A trace without a name is named by its position; a zone-less time is UTC.
    expect(records[3]).toMatchObject({ caseId: 'trace 2', timestamp: utc('2024-02-02T08:00:00Z'), eventId: `${prefix}:0000000004` });
    for (const r of records) {
      expect(checkEvent(r).ok).toBe(true);
      expect(lightCheck(r)).toBeUndefined();
    }
    expect(source.extra()).toMatchObject({ classifiers: { Activity: ['concept:name'], Full: ['concept:name', 'lifecycle:transition'], Who: ['org:resource'] } });
  });

  it('keeps complete events only, labels transitions, or applies a declared classifier', async () => {
    const s = scratch();
    const path = s.file('log.xes', log);
    const activities = async (options: object) => (await collect(await openLog(path, options))).records.map((r) => r.activity);
    // By default a start and its complete are one execution.
    expect(await activities({})).toEqual(['Register', 'Check', 'Register']);
    expect(await activities({ lifecycle: 'all' })).toEqual(['Register', 'Register', 'Check', 'Register']);
    // Transition compared case-insensitively; an event without one is kept.
    expect(await activities({ lifecycle: 'complete' })).toEqual(['Register', 'Check', 'Register']);
    expect(await activities({ lifecycle: 'label' })).toEqual(['Register+start', 'Register+COMPLETE', 'Check', 'Register+complete']);
    // A classifier key missing on the event takes the global default.
    expect(await activities({ classifier: 'Full' })).toEqual(['Register+start', 'Register+COMPLETE', 'Check+complete', 'Register+complete']);
    const who = await collect(await openLog(path, { classifier: 'Who' }));
    // Ann's start and complete of Register are one execution.
    expect(who.records.map((r) => r.activity)).toEqual(['ann']);
    expect(who.rejected.map((r) => [r.location, r.reason])).toEqual([
      ['trace 1 event 3', 'event has none of the classifier keys org:resource'],
      ['trace 2 event 1', 'event has none of the classifier keys org:resource'],
    ]);
    const complete = await inspectLog(path, { lifecycle: 'complete' });
    expect(complete).toMatchObject({ events: 3, filtered_by_lifecycle: 1 });
    await expect(openLog(path, { classifier: 'Nope' }).then(collect)).rejects.toThrow(/classifier 'Nope' is not declared.*'Activity', 'Full', 'Who'/);
    await expect(openLog(path, { classifier: 'Nope' }).then(collect)).rejects.toBeInstanceOf(FileImportError);
  });

  it('rejects events without a readable time or name, at their trace and event', async () => {
    const s = scratch();
    const bad = `${header}<trace><string key="concept:name" value="c1"/>
      <event><string key="concept:name" value="A"/><date key="time:timestamp" value="2024-01-01T00:00:00Z"/></event>
      <event><string key="concept:name" value="B"/><date key="time:timestamp" value="yesterday"/></event>
      <event><string key="concept:name" value="C"/></event>
      <event><date key="time:timestamp" value="2024-01-01T00:00:00Z"/></event>
      <event><string key="concept:name" value="D"/><date key="time:timestamp" value="2024-01-02T00:00:00Z"/></event>
    </trace></log>`;
    const { records, rejected } = await collect(await openLog(s.file('bad.xes', bad)));
    expect(records.map((r) => r.activity)).toEqual(['A', 'D']);
    expect(rejected.map((r) => [r.location, r.reason])).toEqual([
      ['trace 1 event 2', "cannot read time:timestamp 'yesterday'"],
      ['trace 1 event 3', 'event has no time:timestamp'],
      ['trace 1 event 4', 'event has no concept:name'],
    ]);
    expect(JSON.parse(rejected[0]!.payload)).toMatchObject({ caseId: 'c1', 'concept:name': 'B', 'time:timestamp': 'yesterday' });
  });

  it('reads a log whose first events carry no time:timestamp as order only: file order, a timed event refused', async () => {
    const s = scratch();
    // Generated logs (pm4py's synthetic test logs, process-model simulators) record the order of a trace and no clock.
    const untimed = `${header}<trace><string key="concept:name" value="c1"/>
      <event><string key="concept:name" value="A"/></event>
      <event><string key="concept:name" value="B"/></event>
      <event><string key="concept:name" value="B"/></event>
    </trace>${'<trace><event><string key="concept:name" value="X"/></event></trace>'.repeat(2000)}<trace><string key="concept:name" value="late"/>
      <event><string key="concept:name" value="A"/></event>
      <event><string key="concept:name" value="C"/><date key="time:timestamp" value="2024-01-01T00:00:00Z"/></event>
    </trace></log>`;
    const path = s.file('order.xes', untimed);
    const summary = await inspectLog(path);
    expect(summary).toMatchObject({ cases: 2002, events: 2004, period_start: null, period_end: null, rejected: 1, times: expect.stringMatching(/^none: /) });
    // The first events say the log has no clock; a time met later has no place in its order.
    expect(summary.rejections).toEqual([{ location: 'trace 2002 event 2', reason: 'event has a time:timestamp in a log whose first events have none (read as order only)' }]);
    const store = s.store();
    expect(await importLog(store, path)).toMatchObject({ accepted: 2004, rejected: 1 });
    const traces = [...store.traces()].map((t) => t.map((e) => [e.activity, e.time]));
    expect(traces[0]).toEqual([['A', 0], ['B', 0], ['B', 0]]);
    expect(traces).toContainEqual([['A', 0]]);
    // A log whose first events carry a time needs one on every event, as before (the test above).
  });

  it('keeps every complete event of a truncated file and rejects at the line it stops', async () => {
    const s = scratch();
    const cut = log.indexOf('<date key="time:timestamp" value="2024-02-02');
    const truncated = log.slice(0, cut + 20);
    for (const [name, gzip] of [['cut.xes', false], ['cut.xes.gz', true]] as const) {
      const { records, rejected } = await collect(await openLog(s.file(name, truncated, { gzip }), { lifecycle: 'all' }));
      expect(records.map((r) => r.caseId)).toEqual(['case & 1', 'case & 1', 'case & 1']);
      expect(rejected).toHaveLength(1);
      const line = truncated.split('\n').length;
      expect(rejected[0]!.location).toBe(`line ${line} (trace 2 event 1)`);
      expect(rejected[0]!.reason).toMatch(/^truncated XML: the file ends inside a tag/);
    }
    // Cut between events: the trace's finished events are kept.
    const between = log.slice(0, log.indexOf('<event>', log.indexOf('<event>') + 1));
    const r2 = await collect(await openLog(s.file('cut2.xes', between), { lifecycle: 'all' }));
    expect(r2.records).toHaveLength(1);
    expect(r2.rejected[0]!.reason).toBe('truncated XML: the file ends inside <trace> (truncated?)');
  });

  it('reports a truncated .gz stream and malformed XML with their place', async () => {
    const s = scratch();
    const { gzipSync } = await import('node:zlib');
    const big = `${header}${Array.from({ length: 400 }, (_, i) => `<trace><string key="concept:name" value="c${i}"/><event><string key="concept:name" value="A"/><date key="time:timestamp" value="2024-01-01T00:00:00Z"/></event></trace>`).join('\n')}</log>`;
    const gz = gzipSync(Buffer.from(big));
    const { records, rejected } = await collect(await openLog(s.file('half.xes.gz', gz.subarray(0, Math.floor(gz.length * 0.6)))));
    expect(records.length).toBeGreaterThan(0);
    expect(records.length).toBeLessThan(400);
    expect(rejected).toHaveLength(1);
    expect(rejected[0]!.reason).toMatch(/truncated/);
    const malformed = `${header}<trace><event><string key="concept:name" value="A"/><date key="time:timestamp" value="2024-01-01T00:00:00Z"/></event>\n<event><string key=broken/></event></trace></log>`;
    const m = await collect(await openLog(s.file('m.xes', malformed)));
    expect(m.records).toHaveLength(1);
    expect(m.rejected[0]!.location).toBe(`line ${malformed.split('\n').length} (trace 1 event 2)`);
    expect(m.rejected[0]!.reason).toMatch(/^malformed XML: attribute key is not quoted/);
  });

  it('reads a Latin-1 file by its declaration and skips a UTF-8 byte order mark', async () => {
    const s = scratch();
    const body = (decl: string) => `${decl}<log><trace><string key="concept:name" value="café"/><event><string key="concept:name" value="Prüfen"/><date key="time:timestamp" value="2024-01-01T00:00:00Z"/></event></trace></log>`;
    const latin1 = Buffer.from(body('<?xml version="1.0" encoding="ISO-8859-1"?>'), 'latin1');
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(body('<?xml version="1.0" encoding="UTF-8"?>'), 'utf8')]);
    for (const bytes of [latin1, bom]) {
      const { records } = await collect(await openLog(s.file('enc.xes', bytes)));
      expect(records.map((r) => [r.caseId, r.activity])).toEqual([['café', 'Prüfen']]);
    }
  });

  it('reads .gz by its magic bytes, whatever the name, to the same events', async () => {
    const s = scratch();
    const plain = await collect(await openLog(s.file('a.xes', log)));
    const gz = await collect(await openLog(s.file('a.txt', log, { gzip: true })));
    expect(gz.records.map(({ eventId: _, ...r }) => r)).toEqual(plain.records.map(({ eventId: _, ...r }) => r));
  });

  it('inspects: counts, variants, period; traces sharing a case id are merged as the store merges them', async () => {
    const s = scratch();
    const ev = (a: string, t: string) => `<event><string key="concept:name" value="${a}"/><date key="time:timestamp" value="${t}"/></event>`;
    const tr = (name: string, ...events: string[]) => `<trace><string key="concept:name" value="${name}"/>${events.join('')}</trace>\n`;
    const body = `${header}${tr('x', ev('A', '2024-01-01T00:00:00Z'), ev('B', '2024-01-01T01:00:00Z'))}${tr('y', ev('A', '2024-01-02T00:00:00Z'), ev('B', '2024-01-02T01:00:00Z'))}${tr('x', ev('C', '2024-01-01T00:30:00Z'))}${tr('z', ev('B', '2024-01-03T00:00:00Z'), ev('A', '2024-01-03T00:00:00Z'))}</log>`;
    const path = s.file('dup.xes', body);
    const summary = await inspectLog(path);
    // x = A C B (merged and time-sorted), y = A B, z = B A (a tie keeps file order).
    expect(summary).toMatchObject({ format: 'xes', case_notion: 'trace', cases: 3, events: 7, activities: 3, variants: 3, period_start: '2024-01-01T00:00:00.000Z', period_end: '2024-01-03T00:00:00.000Z', rejected: 0, rejections: [] });
    const store = s.store();
    const { importLog } = await import('../../connectors/files/index.js');
    await importLog(store, path);
    const t = store.snapshot().tally;
    expect([t.cases, t.events, t.activities.size, t.variants.size]).toEqual([3, 7, 3, 3]);
    expect([...t.variants.keys()].sort()).toEqual(['["A","B"]', '["A","C","B"]', '["B","A"]']);
  });
});

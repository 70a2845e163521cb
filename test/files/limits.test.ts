import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkLog, FileImportError, importLog, openLog, readLimits, type ReadLimits } from '../../connectors/files/index.js';
import { openLogOnThread } from '../../connectors/files/reader-thread.js';
import { eventLimits } from '../../engine/index.js';
import { gzipTo, longLineNdjson, newlines, ocelSqlite, wideOcelJson, type SqliteTwist } from '../tools/hostile.js';
import { collect, scratch } from './helpers.js';

/**
 * The bounds on reading a file (connectors/files/limits.ts), each against the
 * hostile input that showed it was missing, made small with small limits:
 * each refusal carries its code and names its setting.
 */
const refusal = async (run: Promise<unknown>): Promise<FileImportError> => {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'expected a refusal').toBeInstanceOf(FileImportError);
  return error as FileImportError;
};

describe('lines, records and tokens (PCG_LINE_LIMIT_BYTES)', () => {
  const limits = readLimits({ lineBytes: 64 * 1024 });

  it('refuses an NDJSON gzip holding one line longer than the limit, as soon as the line passes it', async () => {
    const s = scratch();
    const file = join(s.dir, 'long.ndjson.gz');
    // 16 MiB of line in a few KB of gzip: refused after reading about the limit, never held whole.
    await gzipTo(file, () => longLineNdjson(16 * 2 ** 20));
    const e = await refusal(checkLog(file, {}, limits));
    expect(e.code).toBe('content_too_large');
    expect(e.message).toBe('limit PCG_LINE_LIMIT_BYTES: a line may have at most 65536 bytes (line 2 has more)');
    // The import is refused the same way, its store left as it was.
    const store = s.store();
    await expect(importLog(store, file, {}, { limits })).rejects.toThrow(/PCG_LINE_LIMIT_BYTES/);
    expect(store.eventCount()).toBe(0);
    // Lines within the limit read as before.
    const fine = s.file('fine.ndjson', [...longLineNdjson(60 * 1024)].join(''), { gzip: true });
    expect(await checkLog(fine, {}, limits)).toMatchObject({ format: 'ndjson', records: 3, rejected: 0 });
  });

  it('counts UTF-8 bytes, not characters', async () => {
    const s = scratch();
    const line = JSON.stringify({ caseId: 'c1', activity: 'a', timestamp: 0, attributes: { note: 'é'.repeat(40_000) } });
    expect(line.length).toBeLessThan(64 * 1024);
    const e = await refusal(checkLog(s.file('accents.ndjson', `${line}\n`), {}, limits));
    expect(e.message).toMatch(/^limit PCG_LINE_LIMIT_BYTES: a line may have at most 65536 bytes \(line 1 has more\)$/);
  });

  it('refuses a CSV record longer than the limit, and a stray quote that makes the rest of the file one record', async () => {
    const s = scratch();
    const header = 'case,activity,timestamp,note\n';
    const long = s.file('long.csv', `${header}c1,a,2024-01-01T00:00:00Z,${'x'.repeat(100_000)}\nc1,b,2024-01-01T01:00:00Z,y\n`);
    expect((await refusal(checkLog(long, {}, limits))).message).toMatch(/^limit PCG_LINE_LIMIT_BYTES: a CSV record may have at most 65536 bytes \(the one at line 2 has more/);
    const rows = Array.from({ length: 5000 }, (_, i) => `c${i},a,2024-01-01T00:00:00Z,n${i}\n`).join('');
    const quote = s.file('quote.csv', `${header}c0,a,2024-01-01T00:00:00Z,"open\n${rows}`);
    const e = await refusal(checkLog(quote, {}, limits));
    expect(e.code).toBe('content_too_large');
    expect(e.message).toMatch(/the one at line 2 has more; an unclosed quote/);
    // Under the default limit (1 MiB) the same file reads as before: the quote runs to the end, and that is the damage.
    expect((await checkLog(quote)).damage).toMatchObject({ reason: 'unterminated quoted field at the end of the file' });
  });

  it('refuses a XES token (a tag, a run of text) longer than the limit', async () => {
    const s = scratch();
    // Past a chunk (256 KB): a token is bounded where it is held for the next chunk (the default limit, 1 MiB, is past one).
    const xes = `<?xml version="1.0"?><log><trace><string key="concept:name" value="t1"/><event><string key="concept:name" value="${'v'.repeat(600_000)}"/></event></trace></log>`;
    const e = await refusal(checkLog(s.file('long.xes', xes), {}, limits));
    expect(e.code).toBe('content_too_large');
    expect(e.message).toMatch(/^limit PCG_LINE_LIMIT_BYTES: an XML tag or run of text may have at most 65536 bytes \(the one at line 1 has more\)$/);
  });
});

describe('decompressed content (PCG_DECOMPRESSED_LIMIT_BYTES, PCG_DECOMPRESSED_RATIO_LIMIT)', () => {
  it('refuses a file whose content passes the limit, plain or gzipped, while reading it', async () => {
    const s = scratch();
    const limits = readLimits({ decompressedBytes: 1024 * 1024 });
    const lines = Array.from({ length: 25_000 }, (_, i) => JSON.stringify({ caseId: `c${i % 50}`, activity: 'a', timestamp: i })).join('\n');
    expect(lines.length).toBeGreaterThan(1024 * 1024);
    for (const gzip of [false, true]) {
      const file = s.file(`big${gzip ? '.gz' : ''}`, lines, { gzip });
      const e = await refusal(checkLog(file, {}, limits));
      expect(e.code).toBe('content_too_large');
      expect(e.message).toMatch(/^limit PCG_DECOMPRESSED_LIMIT_BYTES: a file may hold at most 1048576 bytes of content, decompressed \(this one has \d+ or more\)$/);
    }
    expect(await checkLog(s.file('ok.gz', lines, { gzip: true }), {}, readLimits({ decompressedBytes: 4 * 1024 * 1024 }))).toMatchObject({ records: 25_000 });
  });

  it('refuses newlines by the GiB in a little gzip once past 64 MiB, by their ratio', async () => {
    const s = scratch();
    const file = join(s.dir, 'bomb.ndjson.gz');
    // 80 MiB of line ends in about 80 KB: 1000 to 1. The default ratio limit is 200.
    await gzipTo(file, () => newlines(80 * 2 ** 20));
    const e = await refusal(checkLog(file));
    expect(e.code).toBe('content_too_large');
    expect(e.message).toMatch(/^limit PCG_DECOMPRESSED_RATIO_LIMIT: past 67108864 bytes of content a gzip file may hold at most 200 bytes per compressed byte \(this one made \d+ bytes of \d+, \d+ to 1\)$/);
    // Without the ratio bound it reads (one event, blank lines skipped).
    expect(await checkLog(file, {}, readLimits({ decompressedRatio: 0 }))).toMatchObject({ records: 1 });
  });

  it('holds a gzipped OCEL file, decompressed whole, to the same limits', async () => {
    const s = scratch();
    const text = wideOcelJson(150, 150);
    expect(text.length).toBeGreaterThan(1024 * 1024);
    const file = s.file('wide.jsonocel.gz', text, { gzip: true });
    // Past the head the format is detected from (one chunk), short of the whole.
    const e = await refusal(checkLog(file, {}, readLimits({ decompressedBytes: 512 * 1024 })));
    expect(e.code).toBe('content_too_large');
    expect(e.message).toBe('limit PCG_DECOMPRESSED_LIMIT_BYTES: a file may hold at most 524288 bytes of content, decompressed (this one has more)');
    expect(await checkLog(file, {}, readLimits({ decompressedBytes: 2 * 1024 * 1024, ocelRelations: 1e8 }))).toMatchObject({ format: 'ocel2-json' });
  });
});

describe('OCEL-SQLite: plain tables only', () => {
  const twists: [SqliteTwist, RegExp][] = [
    ['recursive view', /^SQLite: the OCEL table "event" is a view; only plain tables are read/],
    ['virtual table', /^SQLite: the OCEL table "event_object" is a virtual table;/],
    ['trigger', /^SQLite: the OCEL table "object" has a trigger \("object_added"\);/],
    ['computed column', /^SQLite: the OCEL table "event_Create" has a computed column \("note"\);/],
  ];
  for (const [twist, message] of twists) {
    it(`refuses a file with a ${twist} before reading a row of it`, async () => {
      const s = scratch();
      const file = join(s.dir, `${twist.replace(' ', '-')}.sqlite`);
      ocelSqlite(file, twist);
      // Read, the view would count to a billion and the column make 100 MB a row: refused from the schema, at once
      // (a read would outlast the test's budget; the cost is in test/bench/inputs.ts, never timed here).
      const e = await refusal(checkLog(file));
      expect(e.code).toBe('ocel_unsafe_sqlite');
      expect(e.message).toMatch(message);
    });
  }

  it('reads the same file with plain tables', async () => {
    const s = scratch();
    const file = join(s.dir, 'plain.sqlite');
    ocelSqlite(file);
    expect(await checkLog(file)).toMatchObject({ format: 'ocel2-sqlite', records: 2, rejected: 0 });
  });

  it('counts relation rows against PCG_LIMIT_OCEL_RELATIONS as it reads them', async () => {
    const s = scratch();
    const file = join(s.dir, 'plain.sqlite');
    ocelSqlite(file);
    const e = await refusal(checkLog(file, {}, readLimits({ ocelRelations: 1 })));
    expect(e.code).toBe('limit_exceeded');
    expect(e.message).toBe('limit PCG_LIMIT_OCEL_RELATIONS: an OCEL log may hold at most 1 relations (this one has more event-to-object and object-to-object relations)');
  });
});

describe('OCEL: relations, objects per event, object types', () => {
  it('refuses a log whose flattening would pass the relations budget, before flattening it', async () => {
    const s = scratch();
    // 30 events of 30 objects: 900 relations read, 27,000 once flattened (each event in 30 cases, carrying 30 objects).
    const file = s.file('wide.jsonocel', wideOcelJson(30, 30));
    const e = await refusal(checkLog(file, {}, readLimits({ ocelRelations: 10_000 })));
    expect(e.code).toBe('limit_exceeded');
    expect(e.message).toMatch(/^limit PCG_LIMIT_OCEL_RELATIONS: an OCEL log may hold at most 10000 relations \(flattened on "type-0", each of its events in k cases carries its objects k times/);
    expect(await checkLog(file, {}, readLimits({ ocelRelations: 27_000 }))).toMatchObject({ records: 900 });
    // Read, not flattened: the relations as read count too.
    expect((await refusal(checkLog(file, {}, readLimits({ ocelRelations: 899 })))).message).toMatch(/this one has more event-to-object/);
  });

  it('refuses an OCEL event with more objects than an event may carry, once, and keeps the others', async () => {
    const s = scratch();
    const log = JSON.parse(wideOcelJson(3, 5)) as { events: { relationships: unknown[] }[] };
    log.events[1]!.relationships = log.events[1]!.relationships.slice(0, 2);
    const source = await openLog(s.file('mixed.jsonocel', JSON.stringify(log)), {}, readLimits({ objectsPerEvent: 4 }));
    const read = await collect(source);
    expect(read.records).toHaveLength(2);
    expect(read.rejected.map((r) => [r.location, r.reason])).toEqual([
      ['event event-0', 'objects: limit PCG_LIMIT_OBJECTS_PER_EVENT: an event may have at most 4 objects (this one has 5)'],
      ['event event-2', 'objects: limit PCG_LIMIT_OBJECTS_PER_EVENT: an event may have at most 4 objects (this one has 5)'],
    ]);
  });

  it('refuses a log with more object types than a project may have', async () => {
    const s = scratch();
    const file = s.file('types.jsonocel', wideOcelJson(4, 12, 6));
    const e = await refusal(checkLog(file, {}, readLimits({ objectTypesPerProject: 5 })));
    expect(e.code).toBe('limit_exceeded');
    expect(e.message).toBe('limit PCG_LIMIT_OBJECT_TYPES_PER_PROJECT: a project may have at most 5 object types (this log has 6: "type-0", "type-1", "type-2", …)');
  });

  it('cuts batches of wide events by their object references, not only by their count', async () => {
    const s = scratch();
    // 60 events of 60 objects: 3,600 events carrying 60 objects each, 216,000 references.
    const source = await openLog(s.file('wide.jsonocel', wideOcelJson(60, 60)));
    const read = await collect(source);
    expect(read.records).toHaveLength(3600);
    expect(read.batches).toBe(Math.ceil(216_000 / 50_040));
  });
});

describe('a reading thread', () => {
  it('is ended by an abort wherever it stands, the read failing with the abort', async () => {
    const s = scratch();
    const file = s.file('wide.jsonocel', wideOcelJson(120, 120));
    const stop = new AbortController();
    const reading = openLogOnThread(file, {}, readLimits(), stop.signal);
    stop.abort(new Error('stopping'));
    await expect(reading).rejects.toThrow('stopping');
  });

  it('past its heap, fails naming PCG_READ_HEAP_MIB', async () => {
    const s = scratch();
    // About 14 MB of OCEL JSON: parsed whole and flattened, more than the 64 MiB of heap the thread is given.
    const file = s.file('heavy.jsonocel', wideOcelJson(300, 1000));
    const limits: ReadLimits = { ...readLimits({ heapMiB: 64, ocelRelations: 2e9 }), ...eventLimits({ objectsPerEvent: 1e6 }) };
    const events = async (path: string) => {
      let n = 0;
      for await (const b of (await openLogOnThread(path, {}, limits)).batches()) n += b.events.length;
      return n;
    };
    const e = await refusal(events(file));
    expect(e.code).toBe('limit_exceeded');
    expect(e.message).toBe('limit PCG_READ_HEAP_MIB: reading the file needs more than 64 MiB of heap');
    // The thread itself fits in it: a small log reads under the same heap.
    expect(await events(s.file('small.jsonocel', wideOcelJson(10, 10)))).toBe(100);
  });
});

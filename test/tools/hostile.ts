import Database from 'better-sqlite3';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { createGzip } from 'node:zlib';

/**
 * Hostile inputs of the security review of issue 32, made small: each has the
 * shape that cost without bound, at a size a test can hold, and the tests set
 * the limits small to match. test/bench/inputs.ts makes them at full size.
 */

/** The ways an OCEL-SQLite file can make reading it run code. */
export type SqliteTwist = 'recursive view' | 'virtual table' | 'trigger' | 'computed column';

/**
 * A small OCEL 2.0 SQLite file (two events of type Create, one object, plain tables), or with one table twisted:
 * `event` a view over a recursive CTE counting to `count` (ordered, so its first row comes after all of them: the
 * review's 12 KB file took 15 s), `event_object` a virtual table (FTS5), a trigger on `object`, or a computed
 * column on `event_Create` (text of 100 MB per row).
 */
export function ocelSqlite(path: string, twist?: SqliteTwist, count = 1_000_000_000): void {
  const db = new Database(path);
  try {
    db.exec(`CREATE TABLE event_map_type (ocel_type TEXT PRIMARY KEY, ocel_type_map TEXT);
      INSERT INTO event_map_type VALUES ('Create', 'Create');
      CREATE TABLE object (ocel_id TEXT PRIMARY KEY, ocel_type TEXT);
      INSERT INTO object VALUES ('o1', 'order');
      CREATE TABLE object_object (ocel_source_id TEXT, ocel_target_id TEXT, ocel_qualifier TEXT);`);
    if (twist === 'recursive view') {
      db.exec(`CREATE VIEW event AS
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count})
        SELECT 'e' || i AS ocel_id, 'Create' AS ocel_type FROM n ORDER BY i DESC`);
    } else {
      db.exec(`CREATE TABLE event (ocel_id TEXT PRIMARY KEY, ocel_type TEXT); INSERT INTO event VALUES ('e1', 'Create'), ('e2', 'Create');`);
    }
    if (twist === 'virtual table') db.exec('CREATE VIRTUAL TABLE event_object USING fts5(ocel_event_id, ocel_object_id, ocel_qualifier)');
    else db.exec('CREATE TABLE event_object (ocel_event_id TEXT, ocel_object_id TEXT, ocel_qualifier TEXT)');
    db.exec(`INSERT INTO event_object VALUES ('e1', 'o1', 'q'), ('e2', 'o1', 'q')`);
    if (twist === 'trigger') db.exec(`CREATE TRIGGER object_added AFTER INSERT ON object BEGIN SELECT 1; END`);
    const computed = twist === 'computed column' ? `, note TEXT GENERATED ALWAYS AS (printf('%.*c', 100000000, 'x')) VIRTUAL` : '';
    db.exec(`CREATE TABLE event_Create (ocel_id TEXT, ocel_time TEXT${computed});
      INSERT INTO event_Create (ocel_id, ocel_time) VALUES ('e1', '2024-01-01T00:00:00Z'), ('e2', '2024-01-02T00:00:00Z');`);
  } finally {
    db.close();
  }
}

/**
 * OCEL 2.0 JSON of `events` events each related to the same `objects` objects of one type (the review's 28.7 MB file
 * had 600 of each): flattened, each event lands in `objects` cases carrying `objects` objects each.
 */
export function wideOcelJson(events: number, objects: number, types = 1): string {
  const objectList = Array.from({ length: objects }, (_, i) => ({ id: `object-${String(i).padStart(6, '0')}`, type: `type-${i % types}` }));
  const relationships = objectList.map((o) => ({ objectId: o.id, qualifier: 'part of' }));
  return JSON.stringify({
    objectTypes: Array.from({ length: types }, (_, i) => ({ name: `type-${i}`, attributes: [] })),
    eventTypes: [{ name: 'Step', attributes: [] }],
    objects: objectList,
    events: Array.from({ length: events }, (_, i) => ({ id: `event-${i}`, type: `Step ${i % 10}`, time: new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString(), relationships })),
  });
}

/** Writes `pieces()` gzipped to `path`, streaming: a file of GiBs of content costs its compressed bytes on disk only. */
export async function gzipTo(path: string, pieces: () => Iterable<string | Buffer>): Promise<void> {
  const gzip = createGzip({ level: 9 });
  const out = createWriteStream(path);
  gzip.pipe(out);
  for (const piece of pieces()) if (!gzip.write(piece)) await once(gzip, 'drain');
  gzip.end();
  await once(out, 'close');
}

/** NDJSON whose second line is one event with an attribute of `bytes` bytes (the review's was 640 MiB, in 652 KB of gzip). */
export function* longLineNdjson(bytes: number, chunk = 1 << 20): Iterable<string> {
  yield '{"caseId":"c1","activity":"a","timestamp":"2024-01-01T00:00:00Z"}\n';
  yield '{"caseId":"c1","activity":"b","timestamp":"2024-01-01T01:00:00Z","attributes":{"note":"';
  for (let left = bytes; left > 0; left -= chunk) yield 'x'.repeat(Math.min(chunk, left));
  yield '"}}\n{"caseId":"c1","activity":"c","timestamp":"2024-01-01T02:00:00Z"}\n';
}

/** `bytes` of line ends after one event (the review's bomb: 2 GiB of them in 2 MB of gzip). */
export function* newlines(bytes: number, chunk = 1 << 20): Iterable<Buffer> {
  yield Buffer.from('{"caseId":"c1","activity":"a","timestamp":"2024-01-01T00:00:00Z"}\n');
  const block = Buffer.alloc(chunk, 10);
  for (let left = bytes; left > 0; left -= chunk) yield left >= chunk ? block : block.subarray(0, left);
}

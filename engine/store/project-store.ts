import { contribution } from '../contribution.js';
import { EngineError } from '../errors.js';
import { checkEvent, compareEvents, type Event } from '../event.js';
import { addTally, emptyTally, type Tally } from '../tally.js';
import { CaseCache } from './case-cache.js';
import { tallyFromRows, tallyRows, type CounterRow } from './codec.js';
import { openDatabase, type Db } from './database.js';
import { addDigest, EMPTY_DIGEST } from './digest.js';
import { packTrace, unpackTrace } from './trace-codec.js';

/** Where a batch came from: applying a position at or below the stored one is a no-op. */
export interface Position {
  source: string;
  partition: number;
  offset: number;
}

/** A record the connector could not even turn into a wire event (bad CSV row, bad JSON). */
export interface Rejection {
  reason: string;
  /** The raw input, as text. */
  payload: string;
  /** Where it was: a line, an element, a Kafka offset. */
  location: string;
}

export interface ObjectRecord {
  id: string;
  type: string;
}
export interface ObjectRelation {
  fromId: string;
  toId: string;
  qualifier: string;
}

export interface Batch {
  /** Wire events, unvalidated. */
  records: readonly unknown[];
  /** Per record, where it came from (for dead letters); defaults to `record N`. */
  locations?: readonly string[];
  rejected?: readonly Rejection[];
  objects?: readonly ObjectRecord[];
  objectRelations?: readonly ObjectRelation[];
}

export interface ApplyResult {
  /** False when the position had already been applied: nothing changed. */
  applied: boolean;
  accepted: number;
  duplicates: number;
  rejected: number;
  /** The first few rejections of this batch. */
  rejections: { location: string; reason: string }[];
  dataVersion: number;
}

/** What the document builder reads: sufficient statistics plus source facts. */
export interface ProjectSnapshot {
  tally: Tally;
  dataVersion: number;
  logDigest: string;
  periodStart: number | undefined;
  periodEnd: number | undefined;
  rejected: number;
  meta: Readonly<Record<string, string>>;
  objectCounts: Map<string, number>;
  objectRelations: { fromType: string; toType: string; qualifier: string; count: number }[];
}

export interface StoreOptions {
  /** Events of recently touched cases kept in memory (default 200k). */
  cacheEvents?: number;
}

const REJECTIONS_SHOWN = 20;

/**
 * A project's state in one SQLite file. `apply` is the single write path for
 * every source: a batch, its dead letters, its counter deltas and its source
 * position commit in one synchronous transaction, or not at all.
 */
export class ProjectStore {
  readonly db: Db;
  private readonly cache: CaseCache;
  private tally: Tally | undefined;
  private tallyVersion = -1;
  private readonly q;

  static open(file: string, options: StoreOptions = {}): ProjectStore {
    return new ProjectStore(openDatabase(file), options);
  }

  constructor(db: Db, options: StoreOptions = {}) {
    this.db = db;
    this.cache = new CaseCache(options.cacheEvents ?? 200_000);
    this.q = {
      meta: db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?'),
      setMeta: db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
      position: db.prepare<[string, number], { offset: number }>('SELECT offset FROM position WHERE source = ? AND partition = ?'),
      setPosition: db.prepare('INSERT INTO position (source, partition, offset) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET offset = max(offset, excluded.offset)'),
      eventKey: db.prepare<[string], { case_id: string; digest: string }>('SELECT case_id, digest FROM event_key WHERE key = ?'),
      putEventKey: db.prepare('INSERT INTO event_key (key, case_id, digest) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET case_id = excluded.case_id, digest = excluded.digest'),
      trace: db.prepare<[string], { trace: string }>('SELECT trace FROM case_trace WHERE case_id = ?'),
      putTrace: db.prepare(
        'INSERT INTO case_trace (case_id, first_time, last_time, events, trace) VALUES (?, ?, ?, ?, ?) ON CONFLICT (case_id) DO UPDATE SET first_time = excluded.first_time, last_time = excluded.last_time, events = excluded.events, trace = excluded.trace',
      ),
      deleteTrace: db.prepare('DELETE FROM case_trace WHERE case_id = ?'),
      bumpCounter: db.prepare<[string, string, string, number, number], { n: number }>(
        'INSERT INTO counter (kind, k1, k2, bucket, n) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET n = n + excluded.n RETURNING n',
      ),
      deleteCounter: db.prepare('DELETE FROM counter WHERE kind = ? AND k1 = ? AND k2 = ? AND bucket = ?'),
      counters: db.prepare<[], CounterRow>('SELECT kind, k1, k2, bucket, n FROM counter'),
      deadLetter: db.prepare('INSERT INTO dead_letter (source, location, reason, payload, received_at) VALUES (?, ?, ?, ?, ?)'),
      putObject: db.prepare('INSERT OR IGNORE INTO object (id, type) VALUES (?, ?)'),
      putRelation: db.prepare('INSERT OR IGNORE INTO object_relation (from_id, to_id, qualifier) VALUES (?, ?, ?)'),
      period: db.prepare<[], { start: number | null; end: number | null }>(
        'SELECT (SELECT min(first_time) FROM case_trace) AS start, (SELECT max(last_time) FROM case_trace) AS end',
      ),
    };
  }

  close(): void {
    this.db.close();
  }

  getMeta(key: string): string | undefined {
    return this.q.meta.get(key)?.value;
  }

  /** Source-level facts (case notion, format, time zone): not counted, so no version change. */
  setMeta(key: string, value: string): void {
    this.q.setMeta.run(key, value);
  }

  get dataVersion(): number {
    return Number(this.getMeta('data_version') ?? '0');
  }

  position(source: string, partition = 0): number | undefined {
    return this.q.position.get(source, partition)?.offset;
  }

  apply(batch: Batch, position?: Position): ApplyResult {
    const result: ApplyResult = { applied: false, accepted: 0, duplicates: 0, rejected: 0, rejections: [], dataVersion: 0 };
    let delta: Tally | undefined;
    const traces = new Map<string, Event[]>();
    try {
      this.db.transaction(() => {
        if (position) {
          const stored = this.position(position.source, position.partition);
          if (stored !== undefined && stored >= position.offset) {
            result.dataVersion = this.dataVersion;
            return;
          }
        }
        result.applied = true;
        const source = position?.source ?? 'direct';
        const reject = (location: string, reason: string, payload: string) => {
          result.rejected += 1;
          if (result.rejections.length < REJECTIONS_SHOWN) result.rejections.push({ location, reason });
          this.q.deadLetter.run(source, location, reason, payload, Date.now());
        };
        for (const r of batch.rejected ?? []) reject(r.location, r.reason, r.payload);

        // Within the batch, one body per key: the smallest digest, as across batches.
        const incoming = new Map<string, Event>();
        batch.records.forEach((record, i) => {
          const checked = checkEvent(record);
          if (!checked.ok) {
            reject(batch.locations?.[i] ?? `record ${i + 1}`, checked.reason, safeJson(record));
            return;
          }
          const e = checked.event;
          const seen = incoming.get(e.key);
          if (seen) result.duplicates += 1;
          if (!seen || e.digest < seen.digest) incoming.set(e.key, e);
        });

        let digest = this.getMeta('log_digest') ?? EMPTY_DIGEST;
        const removals = new Map<string, Set<string>>();
        const additions = new Map<string, Event[]>();
        for (const e of incoming.values()) {
          const kept = this.q.eventKey.get(e.key);
          if (kept && kept.digest <= e.digest) {
            result.duplicates += 1;
            continue;
          }
          if (kept) {
            // A different body under a known id, and it wins: the old one leaves its case.
            digest = addDigest(digest, kept.digest, -1);
            getOrSet(removals, kept.case_id, () => new Set()).add(e.key);
          }
          digest = addDigest(digest, e.digest, 1);
          getOrSet(additions, e.caseId, () => []).push(e);
          this.q.putEventKey.run(e.key, e.caseId, e.digest);
          result.accepted += 1;
        }

        if (result.rejected) this.q.setMeta.run('rejected', String(Number(this.getMeta('rejected') ?? '0') + result.rejected));
        const objectsChanged = this.putObjects(batch, incoming.values());
        const touched = new Set([...removals.keys(), ...additions.keys()]);
        if (touched.size === 0 && !objectsChanged) {
          if (position) this.q.setPosition.run(position.source, position.partition, position.offset);
          result.dataVersion = this.dataVersion;
          return;
        }

        delta = emptyTally();
        for (const caseId of touched) {
          const before = this.loadTrace(caseId);
          const gone = removals.get(caseId);
          let after = gone ? before.filter((e) => !gone.has(e.key)) : before.slice();
          const added = additions.get(caseId) ?? [];
          const appendOnly = !gone && added.length > 0 && (after.length === 0 || compareEvents(after[after.length - 1]!, added[0]!) < 0);
          after.push(...added);
          if (!appendOnly || added.length > 1) after.sort(compareEvents);
          addTally(delta, contribution(before), -1);
          addTally(delta, contribution(after), 1);
          traces.set(caseId, after);
          if (after.length === 0) this.q.deleteTrace.run(caseId);
          else this.q.putTrace.run(caseId, after[0]!.time, after[after.length - 1]!.time, after.length, packTrace(after));
        }
        for (const r of tallyRows(delta)) {
          const stored = this.q.bumpCounter.get(r.kind, r.k1, r.k2, r.bucket, r.n);
          if (stored && stored.n === 0) this.q.deleteCounter.run(r.kind, r.k1, r.k2, r.bucket);
        }
        result.dataVersion = this.dataVersion + 1;
        this.q.setMeta.run('data_version', String(result.dataVersion));
        this.q.setMeta.run('log_digest', digest);
        if (position) this.q.setPosition.run(position.source, position.partition, position.offset);
      })();
    } catch (error) {
      this.cache.clear();
      this.tally = undefined;
      throw error;
    }
    for (const [caseId, trace] of traces) this.cache.set(caseId, trace);
    if (delta && this.tally && this.tallyVersion === result.dataVersion - 1) {
      addTally(this.tally, delta, 1);
      this.tallyVersion = result.dataVersion;
    }
    return result;
  }

  private putObjects(batch: Batch, events: Iterable<Event>): boolean {
    let changed = 0;
    for (const o of batch.objects ?? []) changed += this.q.putObject.run(o.id, o.type).changes;
    for (const e of events) for (const o of e.objects) changed += this.q.putObject.run(o.id, o.type).changes;
    for (const r of batch.objectRelations ?? []) changed += this.q.putRelation.run(r.fromId, r.toId, r.qualifier).changes;
    return changed > 0;
  }

  private loadTrace(caseId: string): Event[] {
    const cached = this.cache.get(caseId);
    if (cached) return cached;
    const row = this.q.trace.get(caseId);
    return row ? unpackTrace(caseId, row.trace) : [];
  }

  /** The counted state; served from memory while no other connection has written. */
  currentTally(): Tally {
    const version = this.dataVersion;
    if (!this.tally || this.tallyVersion !== version) {
      this.tally = tallyFromRows(this.q.counters.iterate());
      this.tallyVersion = version;
    }
    return this.tally;
  }

  snapshot(): ProjectSnapshot {
    return this.db.transaction(() => {
      const tally = structuredClone(this.currentTally());
      const period = this.q.period.get()!;
      const meta: Record<string, string> = {};
      for (const r of this.db.prepare<[], { key: string; value: string }>('SELECT key, value FROM meta').iterate()) meta[r.key] = r.value;
      const objectCounts = new Map<string, number>();
      for (const r of this.db.prepare<[], { type: string; n: number }>('SELECT type, count(*) AS n FROM object GROUP BY type ORDER BY type').iterate()) {
        objectCounts.set(r.type, r.n);
      }
      const objectRelations = this.db
        .prepare<[], { fromType: string; toType: string; qualifier: string; count: number }>(
          `SELECT f.type AS fromType, t.type AS toType, r.qualifier AS qualifier, count(*) AS count
           FROM object_relation r JOIN object f ON f.id = r.from_id JOIN object t ON t.id = r.to_id
           GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
        )
        .all();
      return {
        tally,
        dataVersion: Number(meta.data_version ?? '0'),
        logDigest: meta.log_digest ?? EMPTY_DIGEST,
        periodStart: period.start ?? undefined,
        periodEnd: period.end ?? undefined,
        rejected: Number(meta.rejected ?? '0'),
        meta,
        objectCounts,
        objectRelations,
      };
    })();
  }

  /** Every kept event, case by case in case order: the raw log for rebuilds and filtered views. */
  *events(): Generator<Event> {
    for (const row of this.db.prepare<[], { case_id: string; trace: string }>('SELECT case_id, trace FROM case_trace ORDER BY case_id').iterate()) {
      yield* unpackTrace(row.case_id, row.trace);
    }
  }

  /** Recomputes every counter from the kept events (after a version change of contribution, say). */
  rebuild(): void {
    const t = emptyTally();
    for (const row of this.db.prepare<[], { case_id: string; trace: string }>('SELECT case_id, trace FROM case_trace').iterate()) {
      addTally(t, contribution(unpackTrace(row.case_id, row.trace)), 1);
    }
    this.db.transaction(() => {
      this.db.exec('DELETE FROM counter');
      const insert = this.db.prepare('INSERT INTO counter (kind, k1, k2, bucket, n) VALUES (?, ?, ?, ?, ?)');
      for (const r of tallyRows(t)) insert.run(r.kind, r.k1, r.k2, r.bucket, r.n);
      this.q.setMeta.run('data_version', String(this.dataVersion + 1));
    })();
    this.tally = undefined;
  }

  deadLetters(limit = 100): { source: string; location: string; reason: string; payload: string; receivedAt: number }[] {
    return this.db
      .prepare<[number], { source: string; location: string; reason: string; payload: string; receivedAt: number }>(
        'SELECT source, location, reason, payload, received_at AS receivedAt FROM dead_letter ORDER BY id LIMIT ?',
      )
      .all(limit);
  }
}

function getOrSet<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let v = map.get(key);
  if (v === undefined) map.set(key, (v = make()));
  return v;
}

function safeJson(value: unknown): string {
  try {
    return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  } catch {
    return String(value);
  }
}

export { EngineError };

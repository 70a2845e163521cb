import { contribute, COUNTING_VERSION, type CaseFold } from '../contribution.js';
import { checkEvent, compareEvents, type Event } from '../event.js';
import { type Tally } from '../tally.js';
import type { ApplyResult, Batch, Position, ProjectSnapshot, StoreOptions } from './types.js';
import { CaseCache } from './case-cache.js';
import { Counters, tallyFromRows, type CounterRow } from './codec.js';
import { KeyBook } from './counter-keys.js';
import { openDatabase, type Db } from './database.js';
import { DigestSum, EMPTY_DIGEST } from './digest.js';
import { packBody, unpackRow, type EventRow } from './trace-codec.js';

export type { ApplyResult, Batch, ObjectRecord, ObjectRelation, Position, ProjectSnapshot, Rejection, StoreOptions } from './types.js';

const REJECTIONS_SHOWN = 20;
/** A store's KeyBook is started afresh between batches once it numbers this many counters (a 1M-event stream needs ~36k). */
const MAX_COUNTER_IDS = 200_000;

/** What a batch did to the kept events, for the case updates that follow. */
interface BatchChanges {
  digest: DigestSum;
  /** New and winning events, by their case. */
  additions: Map<string, Event[]>;
  /** Losing old bodies of replaced events, by their old case. */
  replaced: Map<string, Event[]>;
  /** Keys whose row this batch wrote. */
  written: Set<string>;
  touched: Set<string>;
  addedMin: number;
  addedMax: number;
}

/**
 * A project's state in one SQLite file. `apply` is the single write path for
 * every source: a batch, its dead letters, its counter deltas and its source
 * position commit in one synchronous transaction, or not at all.
 */
export class ProjectStore {
  readonly db: Db;
  private readonly cache: CaseCache;
  private book = new KeyBook();
  private readonly maxCounterIds: number;
  private tally: Tally | undefined;
  private tallyVersion = -1;
  private readonly q;

  static open(file: string, options: StoreOptions = {}): ProjectStore {
    return new ProjectStore(openDatabase(file), options);
  }

  constructor(db: Db, options: StoreOptions = {}) {
    this.db = db;
    this.cache = new CaseCache(options.cacheCases ?? 100_000);
    this.maxCounterIds = options.maxCounterIds ?? MAX_COUNTER_IDS;
    this.q = {
      meta: db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?'),
      setMeta: db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
      position: db.prepare<[string, number], { offset: number }>('SELECT offset FROM position WHERE source = ? AND partition = ?'),
      setPosition: db.prepare('INSERT INTO position (source, partition, offset) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET offset = max(offset, excluded.offset)'),
      eventRow: db.prepare<[string], EventRow>('SELECT key, case_id, time, digest, body FROM event WHERE key = ?'),
      addEvent: db.prepare('INSERT INTO event (key, case_id, time, digest, body) VALUES (?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING'),
      replaceEvent: db.prepare('UPDATE event SET case_id = ?, time = ?, digest = ?, body = ? WHERE key = ?'),
      caseEvents: db.prepare<[string], EventRow>('SELECT key, case_id, time, digest, body FROM event WHERE case_id = ?'),
      putCase: db.prepare(
        'INSERT INTO case_state (case_id, first_time, last_time, events) VALUES (?, ?, ?, ?) ON CONFLICT (case_id) DO UPDATE SET first_time = excluded.first_time, last_time = excluded.last_time, events = excluded.events',
      ),
      deleteCase: db.prepare('DELETE FROM case_state WHERE case_id = ?'),
      caseSize: db.prepare<[string], { events: number }>('SELECT events FROM case_state WHERE case_id = ?'),
      bumpCounter: db.prepare('INSERT INTO counter (kind, k1, k2, bucket, n) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET n = n + excluded.n'),
      // Rows that fell to zero, found through a partial index that holds only them.
      deleteZeroCounters: db.prepare('DELETE FROM counter WHERE n = 0'),
      counters: db.prepare<[], CounterRow>('SELECT kind, k1, k2, bucket, n FROM counter'),
      deadLetter: db.prepare('INSERT INTO dead_letter (source, location, reason, payload, received_at) VALUES (?, ?, ?, ?, ?)'),
      putObject: db.prepare('INSERT OR IGNORE INTO object (id, type) VALUES (?, ?)'),
      putRelation: db.prepare('INSERT OR IGNORE INTO object_relation (from_id, to_id, qualifier) VALUES (?, ?, ?)'),
      period: db.prepare<[], { start: number | null; end: number | null }>(
        'SELECT (SELECT min(first_time) FROM case_state) AS start, (SELECT max(last_time) FROM case_state) AS end',
      ),
    };
    this.upgradeCounters();
  }

  /** Counters written by an older version of contribution() are recounted from the kept events. */
  private upgradeCounters(): void {
    if (this.getMeta('counting') === String(COUNTING_VERSION)) return;
    const hasEvents = this.db.prepare('SELECT 1 FROM event LIMIT 1').get() !== undefined;
    if (hasEvents) this.rebuild();
    this.setMeta('counting', String(COUNTING_VERSION));
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
    let delta: Counters | undefined;
    let folds = new Map<string, CaseFold>();
    if (this.book.size > this.maxCounterIds) {
      // Cached folds hold ids of the old book.
      this.book = new KeyBook();
      this.cache.clear();
    }
    try {
      this.db.transaction(() => {
        result.dataVersion = this.dataVersion;
        if (position) {
          const stored = this.position(position.source, position.partition);
          if (stored !== undefined && stored >= position.offset) return;
          this.q.setPosition.run(position.source, position.partition, position.offset);
        }
        result.applied = true;
        const incoming = this.validate(batch, position?.source ?? 'direct', result);
        const changes = this.writeEvents(incoming, result);
        const objectsChanged = this.putObjects(batch, incoming.values());
        if (changes.touched.size === 0 && !objectsChanged) return;

        delta = new Counters(this.book);
        folds = this.updateCases(changes, delta);
        for (const r of delta.rows()) {
          this.q.bumpCounter.run(r.kind, r.k1, r.k2, r.bucket, r.n);
        }
        this.q.deleteZeroCounters.run();
        this.updatePeriod(changes);
        result.dataVersion += 1;
        this.q.setMeta.run('data_version', String(result.dataVersion));
        this.q.setMeta.run('log_digest', changes.digest.toHex());
      })();
    } catch (error) {
      this.cache.clear();
      this.tally = undefined;
      throw error;
    }
    for (const [caseId, fold] of folds) this.cache.set(caseId, fold);
    if (delta && this.tally && this.tallyVersion === result.dataVersion - 1) {
      tallyFromRows(delta.rows(), this.tally);
      this.tallyVersion = result.dataVersion;
    }
    return result;
  }

  /** Validated events of the batch, one body per key (the smallest digest, as across batches); the rest dead-lettered. */
  private validate(batch: Batch, source: string, result: ApplyResult): Map<string, Event> {
    const reject = (location: string, reason: string, payload: string) => {
      result.rejected += 1;
      if (result.rejections.length < REJECTIONS_SHOWN) result.rejections.push({ location, reason });
      this.q.deadLetter.run(source, location, reason, payload, Date.now());
    };
    for (const r of batch.rejected ?? []) reject(r.location, r.reason, r.payload);
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
    if (result.rejected) this.q.setMeta.run('rejected', String(Number(this.getMeta('rejected') ?? '0') + result.rejected));
    return incoming;
  }

  /**
   * Writes the batch's new and winning events. The insert itself is the
   * duplicate check (one statement for the common, new event); only a
   * conflict reads the kept row.
   */
  private writeEvents(incoming: Map<string, Event>, result: ApplyResult): BatchChanges {
    const changes: BatchChanges = {
      digest: new DigestSum(this.getMeta('log_digest') ?? EMPTY_DIGEST),
      additions: new Map(),
      replaced: new Map(),
      written: new Set(),
      touched: new Set(),
      addedMin: Infinity,
      addedMax: -Infinity,
    };
    for (const e of incoming.values()) {
      const body = packBody(e);
      if (this.q.addEvent.run(e.key, e.caseId, e.time, e.digest, body).changes === 0) {
        const kept = this.q.eventRow.get(e.key)!;
        if (kept.digest <= e.digest) {
          result.duplicates += 1;
          continue;
        }
        // A different body under a known id, and it wins: the old one leaves its case.
        changes.digest.add(kept.digest, -1);
        getOrSet(changes.replaced, kept.case_id, () => []).push(unpackRow(kept));
        changes.touched.add(kept.case_id);
        this.q.replaceEvent.run(e.caseId, e.time, e.digest, body, e.key);
      }
      changes.digest.add(e.digest, 1);
      getOrSet(changes.additions, e.caseId, () => []).push(e);
      changes.written.add(e.key);
      changes.touched.add(e.caseId);
      changes.addedMin = Math.min(changes.addedMin, e.time);
      changes.addedMax = Math.max(changes.addedMax, e.time);
      result.accepted += 1;
    }
    return changes;
  }

  /** Moves every touched case to its new state, adding its contribution's change to delta. */
  private updateCases(changes: BatchChanges, delta: Counters): Map<string, CaseFold> {
    const folds = new Map<string, CaseFold>();
    for (const caseId of changes.touched) {
      const added = (changes.additions.get(caseId) ?? []).sort(compareEvents);
      const replaced = changes.replaced.get(caseId);
      let fold = this.cache.get(caseId);
      if (fold && !replaced && added.length > 0 && fold.precedes(added[0]!)) {
        // The common case of a stream: events after the case's last one continue its fold.
        this.cache.delete(caseId);
        fold.finish(delta, -1);
        for (const e of added) fold.step(e, delta, 1);
        fold.finish(delta, 1);
      } else {
        // Anything else retracts the whole old contribution and adds the new one.
        const before = this.storedTrace(caseId, changes);
        contribute(delta, before, -1);
        const after = before.filter((e) => !changes.written.has(e.key)).concat(added).sort(compareEvents);
        fold = contribute(delta, after, 1);
      }
      folds.set(caseId, fold);
      if (fold.size === 0) this.q.deleteCase.run(caseId);
      else this.q.putCase.run(caseId, fold.firstTime, fold.lastTime, fold.size);
    }
    return folds;
  }

  /** A case as it was before this batch, read back from rows this batch has already written over. */
  private storedTrace(caseId: string, changes: BatchChanges): Event[] {
    // A primary-key probe first: most cases a stream touches uncached are new ones.
    if (!this.q.caseSize.get(caseId)) return changes.replaced.get(caseId) ?? [];
    const rows = this.q.caseEvents.all(caseId).map(unpackRow).filter((e) => !changes.written.has(e.key));
    return rows.concat(changes.replaced.get(caseId) ?? []).sort(compareEvents);
  }

  /** The log's period, kept in meta: widened by additions, recomputed when a replacement may have narrowed it. */
  private updatePeriod(changes: BatchChanges): void {
    if (changes.replaced.size > 0) {
      const p = this.q.period.get()!;
      this.q.setMeta.run('period_start', String(p.start ?? ''));
      this.q.setMeta.run('period_end', String(p.end ?? ''));
      return;
    }
    if (changes.addedMin === Infinity) return;
    const start = this.getMeta('period_start');
    const end = this.getMeta('period_end');
    if (!start || changes.addedMin < Number(start)) this.q.setMeta.run('period_start', String(changes.addedMin));
    if (!end || changes.addedMax > Number(end)) this.q.setMeta.run('period_end', String(changes.addedMax));
  }

  private putObjects(batch: Batch, events: Iterable<Event>): boolean {
    let changed = 0;
    for (const o of batch.objects ?? []) changed += this.q.putObject.run(o.id, o.type).changes;
    for (const e of events) for (const o of e.objects) changed += this.q.putObject.run(o.id, o.type).changes;
    for (const r of batch.objectRelations ?? []) changed += this.q.putRelation.run(r.fromId, r.toId, r.qualifier).changes;
    return changed > 0;
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
      const period = { start: metaNumber(this.getMeta('period_start')), end: metaNumber(this.getMeta('period_end')) };
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
    for (const trace of this.traces()) yield* trace;
  }

  /** Every case's events in case order, one case at a time. */
  *traces(): Generator<Event[]> {
    let current: Event[] = [];
    const rows = this.db.prepare<[], EventRow>('SELECT key, case_id, time, digest, body FROM event ORDER BY case_id').iterate();
    for (const row of rows) {
      if (current.length && current[0]!.caseId !== row.case_id) {
        yield current.sort(compareEvents);
        current = [];
      }
      current.push(unpackRow(row));
    }
    if (current.length) yield current.sort(compareEvents);
  }

  /** Recomputes every counter from the kept events (after a change to contribution, say). */
  rebuild(): void {
    const all = new Counters(new KeyBook());
    for (const trace of this.traces()) contribute(all, trace, 1);
    this.db.transaction(() => {
      this.db.exec('DELETE FROM counter');
      const insert = this.db.prepare('INSERT INTO counter (kind, k1, k2, bucket, n) VALUES (?, ?, ?, ?, ?)');
      for (const r of all.rows()) insert.run(r.kind, r.k1, r.k2, r.bucket, r.n);
      this.q.setMeta.run('data_version', String(this.dataVersion + 1));
    })();
    this.tally = undefined;
    this.cache.clear();
  }

  deadLetters(limit = 100): { source: string; location: string; reason: string; payload: string; receivedAt: number }[] {
    return this.db
      .prepare<[number], { source: string; location: string; reason: string; payload: string; receivedAt: number }>(
        'SELECT source, location, reason, payload, received_at AS receivedAt FROM dead_letter ORDER BY id LIMIT ?',
      )
      .all(limit);
  }
}

function metaNumber(value: string | undefined): number | null {
  return value ? Number(value) : null;
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


import { CaseFold, contribute, contributeAfter, COUNTING_VERSION } from '../contribution.js';
import { mergeCaseSample } from './case-sample.js';
import { EngineError } from '../errors.js';
import { compareEvents, DEFAULT_EVENT_LIMITS, sortEvents, type Event, type EventLimits } from '../event.js';
import { type Tally } from '../tally.js';
import type { ApplyResult, Batch, DeadLetter, Position, ProjectSnapshot, Remapped, ReplayResult, StoreOptions, TallyChange } from './types.js';
import { CaseCache, DEFAULT_COLD_FOLD_BYTES, type FoldCodec } from './case-cache.js';
import { Counters, tallyFromRows } from './codec.js';
import { KeyBook } from './counter-keys.js';
import { CaseTable } from './case-table.js';
import { changeRows, CounterTable } from './counter-table.js';
import type { Statement } from 'better-sqlite3';
import { openDatabase, type Db } from './database.js';
import { DigestSum, EMPTY_DIGEST } from './digest.js';
import { EventLog, type BatchChanges } from './event-log.js';
import { unpackRow } from './trace-codec.js';
import { isPrepared, prepareBatch, type PreparedBatch } from './prepare.js';
import { admitObjectTypes } from './object-types.js';
import { deleteDeadLetters, FoldTable, oldestDeadLetters, pruneCases, type DeadLetterSelection, type PruneStep } from './retention.js';

export type { ApplyResult, Batch, DeadLetter, ObjectRecord, ObjectRelation, Position, ProjectSnapshot, Rejection, Remapped, ReplayResult, StoreOptions, TallyChange } from './types.js';

const REJECTIONS_SHOWN = 20;
/** A dead letter keeps at most this many bytes of its message (a 1 MB junk message must not become 1 MB per copy). */
export const MAX_RAW_BYTES = 64 * 1024;
/** A store's KeyBook is started afresh between batches once it numbers this many counters (a 1M-event stream needs ~36k). */
const MAX_COUNTER_IDS = 200_000;

/**
 * A project's state in one SQLite file. `apply` is the single write path for
 * every source: a batch, its dead letters, its counter deltas and its source
 * position commit in one synchronous transaction, or not at all.
 */
export class ProjectStore {
  readonly db: Db;
  private readonly log: EventLog;
  private readonly counters: CounterTable;
  private readonly cases: CaseTable;
  private readonly cache: CaseCache;
  /** Pruned cases' folds (retention). */
  private readonly folds: FoldTable;
  /** Meta `pruned_events` as this connection last saw it (pruning by any connection raises it), and the index entries since left pointing at pruned rows. */
  private prunedSeen: number | undefined;
  private staleKeys = 0;
  /** Events the batch being applied stepped after their pruned case's last event (see retention.ts). */
  private late = 0;
  /** The data version this connection last wrote or rebuilt: any other means another writer, and the in-memory copies are dropped. */
  private writtenVersion: number | undefined;
  private book = new KeyBook();
  /** The batch's counter changes: one sum reused batch after batch (sized by the book, it is too big to allocate per batch). */
  private scratch: Counters | undefined;
  private readonly maxCounterIds: number;
  /** Bounds on one event, checked in `validate` for every batch whatever its source. */
  readonly limits: EventLimits;
  private tally: Tally | undefined;
  private tallyVersion = -1;
  /** The counted change of the latest batch applied here, until taken (`takeChange`). */
  private change: TallyChange | undefined;
  /** The object types the file holds (read at the first batch with objects; a copy, dropped with the others). */
  private objectTypes: Set<string> | undefined;
  private readonly q;

  static open(file: string, options: StoreOptions = {}): ProjectStore {
    return new ProjectStore(openDatabase(file), options);
  }

  constructor(db: Db, options: StoreOptions = {}) {
    this.db = db;
    this.log = new EventLog(db);
    this.counters = new CounterTable(db, options.mergeAfter, options.deferMerges);
    this.cases = new CaseTable(db, options.mergeAfter, options.deferMerges);
    this.folds = new FoldTable(db);
    this.cache = new CaseCache(options.cacheCases ?? 100_000, options.foldBudget, this.foldCodec(), options.coldFoldBytes ?? DEFAULT_COLD_FOLD_BYTES);
    this.maxCounterIds = options.maxCounterIds ?? MAX_COUNTER_IDS;
    this.limits = options.limits ?? DEFAULT_EVENT_LIMITS;
    this.q = {
      meta: db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?'),
      setMeta: db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
      position: db.prepare<[string, number], { offset: number }>('SELECT offset FROM position WHERE source = ? AND partition = ?'),
      setPosition: db.prepare('INSERT INTO position (source, partition, offset) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET offset = max(offset, excluded.offset)'),
      deadLetter: db.prepare('INSERT INTO dead_letter (source, location, reason, payload, received_at, raw) VALUES (?, ?, ?, ?, ?, ?)'),
      deadLetters: db.prepare<[string, number, number], DeadLetterRow>(
        'SELECT id, source, location, reason, payload, raw, received_at AS receivedAt FROM dead_letter WHERE source = ? AND id > ? ORDER BY id LIMIT ?',
      ),
      allDeadLetters: db.prepare<[number, number], DeadLetterRow>(
        'SELECT id, source, location, reason, payload, raw, received_at AS receivedAt FROM dead_letter WHERE id > ? ORDER BY id LIMIT ?',
      ),
      dropDeadLetter: db.prepare('DELETE FROM dead_letter WHERE id = ?'),
      deadLetterCount: db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM dead_letter WHERE source = ?'),
      putObject: db.prepare('INSERT OR IGNORE INTO object (id, type) VALUES (?, ?)'),
      putRelation: db.prepare('INSERT OR IGNORE INTO object_relation (from_id, to_id, qualifier) VALUES (?, ?, ?)'),
      // Pruned cases' events count in the period too (their span is kept with their folds).
      period: db.prepare<[], { start: number | null; end: number | null }>(
        'SELECT min(s) AS start, max(e) AS end FROM (SELECT min(time) AS s, max(time) AS e FROM event UNION ALL SELECT min(first_time), max(last_time) FROM case_fold)',
      ),
    };
    this.upgradeCounters();
  }

  /** Folds as text and back, numbered by the book of the moment (a new book clears the cache, text included). */
  private foldCodec(): FoldCodec {
    return { text: (fold) => fold.pack(), fold: (text) => CaseFold.unpack(text, this.book) };
  }

  /**
   * Counters written by an older version of contribution() are recounted from the kept events. A pruned state
   * cannot be recounted (its pruned events are gone). Version 4 only added the log profile's counters
   * (engine/profile-fold.ts), so a pruned state of version 3 keeps its counts and gains the profile of the cases
   * whose events it still holds whole (meta profile_partial: how many pruned cases the profile leaves out).
   * Version 5 counts an identifier's text on the first event as `i:` (tally.ts firstValue): a pruned state of
   * version 4 keeps its `first` counters as they were (whole states are recounted). Version 6 only added when
   * cases began by where they stop (`began`): a pruned state of version 4 or 5 gains them from its kept events
   * and its pruned cases' folds, which keep their first time.
   */
  private upgradeCounters(): void {
    const from = this.getMeta('counting');
    if (from === String(COUNTING_VERSION)) return;
    const pruned = !this.folds.isEmpty;
    if (from === '3' && pruned) this.addProfile();
    else if ((from === '4' || from === '5') && pruned) this.addBegan();
    else if (!this.log.isEmpty || pruned) this.rebuild();
    this.setMeta('counting', String(COUNTING_VERSION));
  }

  /** The version 4 or 5 to 6 migration of a pruned state: the `began` counters of every case, pruned or whole. */
  private addBegan(): void {
    const counted = new Counters(new KeyBook());
    const pending = new Set(this.folds.ids());
    for (const trace of this.traces()) {
      if (!trace.length) continue;
      const id = trace[0]!.caseId;
      const base = pending.delete(id) ? this.folds.get(id) : undefined;
      if (!base) {
        contribute(counted, trace, 1);
        continue;
      }
      const fold = CaseFold.restore(base.state, counted.book);
      for (const ev of trace) fold.step(ev, counted, 1);
      fold.finish(counted, 1);
    }
    for (const id of pending) CaseFold.restore(this.folds.get(id)!.state, counted.book).finish(counted, 1);
    const began = [...counted.rows()].filter((r) => r.kind === 'began');
    const kept = [...this.counters.rows()].filter((r) => r.kind !== 'began');
    this.db
      .transaction(() => {
        this.counters.replace([...kept, ...began]);
        this.q.setMeta.run('data_version', String(this.dataVersion + 1));
      })
      .immediate();
    this.tally = undefined;
    this.cache.clear();
    this.writtenVersion = this.dataVersion;
  }

  /** The version 3 to 4 migration of a pruned state: the profile's counters of its whole cases added to its counts. */
  private addProfile(): void {
    const pruned = new Set(this.folds.ids());
    const counted = new Counters(new KeyBook());
    for (const trace of this.traces()) if (trace.length && !pruned.has(trace[0]!.caseId)) contribute(counted, trace, 1);
    const profile = [...counted.rows()].filter((r) => r.kind.startsWith('profile.'));
    const kept = [...this.counters.rows()];
    this.db
      .transaction(() => {
        this.counters.replace([...kept, ...profile]);
        this.q.setMeta.run('profile_partial', String(pruned.size));
        this.q.setMeta.run('data_version', String(this.dataVersion + 1));
      })
      .immediate();
    this.tally = undefined;
    this.cache.clear();
    this.writtenVersion = this.dataVersion;
  }

  /**
   * Closes the file; a connection that wrote first applies its pending counter and case changes, so a closed
   * store's tables are whole. `discard` skips that, for a file about to be deleted (a deleted project: merging
   * the pathological tenant's 2,000-activity project took 110-320 ms of the request that deleted it).
   */
  close(options: { discard?: boolean } = {}): void {
    try {
      if (this.db.open && this.writtenVersion !== undefined && !options.discard) {
        this.db
          .transaction(() => {
            this.counters.merge();
            this.cases.merge();
          })
          .immediate();
      }
    } finally {
      this.cache.dispose();
      this.db.close();
    }
  }

  /** Whether merges of pending changes wait for `settle` (a store opened with deferMerges). */
  get settleDue(): boolean {
    return this.db.open && (this.counters.mergeDue || this.cases.mergeDue);
  }

  /**
   * Runs the merges that batches left due (see StoreOptions.deferMerges), in a transaction of their own:
   * the state means the same before and after (counted rows plus pending changes), only its form changes.
   */
  settle(): void {
    if (!this.settleDue) return;
    try {
      this.db
        .transaction(() => {
          this.syncCopies();
          if (this.counters.mergeDue) this.counters.merge();
          if (this.cases.mergeDue) this.cases.merge();
        })
        .immediate();
    } catch (error) {
      this.forgetCopies();
      this.tally = undefined;
      throw error;
    }
  }

  getMeta(key: string): string | undefined {
    return this.q.meta.get(key)?.value;
  }

  /** Starts a fresh KeyBook between batches once it numbers too many counters; cached folds hold ids of the old book, so they go too. */
  private renewBookIfFull(): void {
    if (this.book.size <= this.maxCounterIds) return;
    this.book = new KeyBook();
    this.cache.clear();
  }

  /** Source-level facts (case notion, format, time zone): not counted, so no version change. */
  setMeta(key: string, value: string): void {
    this.q.setMeta.run(key, value);
  }

  /** Every meta entry. */
  allMeta(): Record<string, string> {
    const meta: Record<string, string> = {};
    for (const r of this.db.prepare<[], { key: string; value: string }>('SELECT key, value FROM meta').iterate()) meta[r.key] = r.value;
    return meta;
  }

  /** Events kept (a count of rows, not of the tally: cheap for a reader that does not hold the counters). */
  eventCount(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM event').get() as { n: number }).n;
  }

  /** Whether any event is counted (kept, or pruned with its case's fold kept). */
  hasEvents(): boolean {
    return !this.log.isEmpty || !this.folds.isEmpty;
  }

  /** Counter keys this store holds in memory (its key book: at most maxCounterIds, then renewed with only those in use). */
  get counterKeys(): number {
    return this.book.size;
  }

  get dataVersion(): number {
    return Number(this.getMeta('data_version') ?? '0');
  }

  position(source: string, partition = 0): number | undefined {
    return this.q.position.get(source, partition)?.offset;
  }

  /**
   * Applies a batch (validated here, or already prepared by `prepareBatch` under this store's limits, say on another
   * thread) with its position: everything in one immediate transaction.
   */
  apply(batch: Batch | PreparedBatch, position?: Position, deadLetterSource?: string): ApplyResult {
    let prepared = isPrepared(batch) ? batch : prepareBatch(batch, this.limits);
    const result: ApplyResult = { applied: false, accepted: 0, duplicates: 0, rejected: 0, rejections: [], dataVersion: 0 };
    let delta: Counters | undefined;
    let changed = '';
    let folds = new Map<string, CaseFold>();
    /** The version this batch started from, read under the write lock. */
    let from = 0;
    this.change = undefined;
    this.renewBookIfFull();
    try {
      // Immediate: a writer takes the write lock before reading the stored position, so two writers on one file serialise instead of failing at commit.
      this.db.transaction(() => {
        result.dataVersion = from = this.dataVersion;
        this.syncCopies();
        if (position) {
          const stored = this.position(position.source, position.partition);
          if (stored !== undefined && stored >= position.offset) return;
          if (stored !== undefined && position.first !== undefined && stored >= position.first) {
            throw new EngineError('position_overlap', `${position.source}/${position.partition}: offsets up to ${stored} are applied; the batch starts at ${position.first}`);
          }
          if (position.after !== undefined && (stored ?? -1) < position.after) {
            throw new EngineError('position_gap', `${position.source}/${position.partition}: offsets up to ${stored ?? 'none'} are applied; the batch follows ${position.after}`);
          }
          this.q.setPosition.run(position.source, position.partition, position.offset);
        }
        result.applied = true;
        // Against the stored types, so inside the transaction: a refusal here is a dead letter like any other.
        prepared = admitObjectTypes(prepared, () => (this.objectTypes ??= this.storedObjectTypes()), this.limits.objectTypesPerProject);
        this.deadLetter(prepared, deadLetterSource ?? position?.source ?? 'direct', result);
        const changes = this.log.write(prepared.events, prepared.bodies, this.getMeta('log_digest') ?? EMPTY_DIGEST, position?.source);
        result.accepted += changes.accepted;
        result.duplicates += changes.duplicates;
        if (position) this.countSource(position.source, result);
        const objectsChanged = this.putObjects(prepared);
        if (changes.cases.size === 0 && !objectsChanged) {
          // Only refusals: nothing is counted, but the document states the refused records, so it is a new version.
          if (result.rejected > 0) this.q.setMeta.run('data_version', String((result.dataVersion += 1)));
          return;
        }

        if (this.scratch?.book === this.book) this.scratch.reset();
        else this.scratch = new Counters(this.book);
        delta = this.scratch;
        folds = this.updateCases(changes, delta);
        this.cases.endBatch();
        changed = this.counters.add(delta);
        this.updatePeriod(changes);
        if (this.late > 0) this.q.setMeta.run('late_unsequenced', String(Number(this.getMeta('late_unsequenced') ?? '0') + this.late));
        const sample = mergeCaseSample(JSON.parse(this.getMeta('case_id_sample') ?? '[]') as string[], changes.cases.keys());
        if (sample) this.q.setMeta.run('case_id_sample', JSON.stringify(sample));
        result.dataVersion += 1;
        this.q.setMeta.run('data_version', String(result.dataVersion));
        this.q.setMeta.run('log_digest', changes.digest.toHex());
      }).immediate();
    } catch (error) {
      this.forgetCopies();
      this.tally = undefined;
      throw error;
    }
    this.writtenVersion = result.dataVersion;
    for (const [caseId, fold] of folds) this.cache.set(caseId, fold);
    // The tally held moves on only with a version this batch made from the one it was read at. A batch that made no
    // version (all duplicates, an applied position) must not relabel it: the version may have moved on through
    // another connection (a thread, a dataset taken back elsewhere), and a tally of the version before was then
    // served as the current one.
    if (this.tally && this.tallyVersion === from && result.dataVersion === from + 1) {
      // A version of refusals alone counts nothing: the tally held is still whole.
      if (delta) tallyFromRows(delta.rows(), this.tally);
      this.tallyVersion = result.dataVersion;
    }
    if (result.dataVersion === from + 1) this.change = { from, to: result.dataVersion, rows: changed };
    return result;
  }

  /**
   * The counted change of the batch just applied (from its version to the next), once: what another connection
   * to this file needs to carry its tally forward (`followChange`) instead of reading every counter again.
   */
  takeChange(): TallyChange | undefined {
    const c = this.change;
    this.change = undefined;
    return c;
  }

  /**
   * Carries the tally held here forward by a batch another connection applied, when it is held at exactly that
   * batch's starting version (as `apply` carries its own); otherwise nothing (a later `currentTally` reads the
   * counters). With two work threads a project's writes and builds move between them, and each move made the
   * next build read every counter row again: 500 ms to 3 s per build for the soak's streams after two minutes,
   * a third of the threads' time (BENCHMARKS.md, Soak).
   */
  followChange(change: TallyChange): boolean {
    if (!this.tally || this.tallyVersion !== change.from || change.to !== change.from + 1) return false;
    tallyFromRows(changeRows(change.rows), this.tally);
    this.tallyVersion = change.to;
    return true;
  }

  /** The batch's refused records become dead letters of `source`; the first few are told in the result. */
  private deadLetter(prepared: PreparedBatch, source: string, result: ApplyResult): void {
    result.duplicates += prepared.duplicates;
    if (prepared.rejected.length === 0) return;
    const now = Date.now();
    for (const r of prepared.rejected) {
      if (result.rejections.length < REJECTIONS_SHOWN) result.rejections.push({ location: r.location, reason: r.reason });
      this.q.deadLetter.run(source, r.location, r.reason, r.payload.slice(0, MAX_RAW_BYTES), now, r.raw ? bounded(r.raw) : null);
    }
    result.rejected += prepared.rejected.length;
    this.q.setMeta.run('rejected', String(Number(this.getMeta('rejected') ?? '0') + result.rejected));
  }

  /** The case cache and key index are copies of the file; after a failure or another writer's change they are rebuilt from it. */
  private forgetCopies(): void {
    this.objectTypes = undefined;
    this.cache.clear();
    this.log.forget();
    this.staleKeys = 0;
    this.counters.forget();
    this.cases.forget();
    this.writtenVersion = undefined;
  }

  /**
   * At the start of every write: the in-memory copies go when another connection changed the data.
   * Pruning changes no data: the folds stay right, and the key index keeps the entries of rows another
   * connection pruned, which match nothing (a lookup reads the row; pruned ids are never given out
   * again), until they are a quarter of it: then it is rebuilt, rather than at every step of a pass.
   */
  private syncCopies(): void {
    if (this.dataVersion !== this.writtenVersion) this.forgetCopies();
    const pruned = Number(this.getMeta('pruned_events') ?? '0');
    if (pruned === this.prunedSeen) return;
    if (this.prunedSeen !== undefined && this.log.indexed > 0) {
      this.staleKeys += pruned - this.prunedSeen;
      if (this.staleKeys * 4 > this.log.indexed) {
        this.log.forget();
        this.staleKeys = 0;
      }
    } else this.staleKeys = 0;
    this.prunedSeen = pruned;
  }

  /** Moves every touched case to its new state, adding its contribution's change to delta. */
  private updateCases(changes: BatchChanges, delta: Counters): Map<string, CaseFold> {
    const folds = new Map<string, CaseFold>();
    const anyPruned = (this.prunedSeen ?? 0) > 0;
    this.late = 0;
    for (const [caseId, { added, ids: addedIds, replaced }] of changes.cases) {
      sortEvents(added);
      let fold = this.cache.get(caseId);
      if (fold && !replaced && added.length > 0 && fold.precedes(added[0]!)) {
        // The common case of a stream: events after the case's last one continue its fold.
        fold.finish(delta, -1);
        for (const e of added) fold.step(e, delta, 1);
        fold.finish(delta, 1);
        this.cases.append(caseId, addedIds);
        if (fold.prunedUntil) this.countLate(added, fold.prunedUntil);
      } else {
        // Anything else retracts the whole old contribution and adds the new one.
        // Rows this batch wrote over hold new bodies: the old ones are in `replaced`.
        // (Rows it appended are not listed under any case yet.)
        const rows = this.log.rows(this.cases.rowIds(caseId)).filter((r) => !changes.replacedKeys.has(r.key));
        const before = rows.map(unpackRow).concat(replaced ?? []).sort(compareEvents);
        const after = before.filter((e) => !changes.replacedKeys.has(e.key)).concat(added).sort(compareEvents);
        const base = anyPruned ? this.folds.get(caseId) : undefined;
        if (base) {
          // A pruned case: its kept events follow its pruned ones, whatever their times (engine/store/retention.ts).
          contributeAfter(delta, base.state, before, -1);
          fold = contributeAfter(delta, base.state, after, 1);
          fold.prunedUntil = { time: base.last, key: base.lastKey };
          this.countLate(added, fold.prunedUntil);
        } else {
          contribute(delta, before, -1);
          fold = contribute(delta, after, 1);
        }
        this.cases.set(caseId, rows.map((r) => r.id).concat(addedIds));
      }
      folds.set(caseId, fold);
    }
    return folds;
  }

  /** Counts the events written to a pruned case that are not after its latest pruned event (stepped after it all the same). */
  private countLate(added: readonly Event[], until: { time: number; key: string }): void {
    for (const e of added) if (compareEvents(e, until) <= 0) this.late += 1;
  }

  /** The log's period, kept in meta: widened by additions, recomputed when a replacement may have narrowed it. */
  private updatePeriod(changes: BatchChanges): void {
    if (changes.replacedKeys.size > 0) {
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

  /** The object types stored (a scan of the object table, once per connection and after another writer's change). */
  private storedObjectTypes(): Set<string> {
    return new Set(this.db.prepare<[], { type: string }>('SELECT DISTINCT type FROM object').all().map((r) => r.type));
  }

  private putObjects(prepared: PreparedBatch): boolean {
    let changed = 0;
    // Each id once per batch (the first type wins, as INSERT OR IGNORE keeps it): a flattened OCEL event carries all its
    // objects onto each of its cases, so most references of a batch repeat one another.
    const put = new Set<string>();
    const putObject = (id: string, type: string) => {
      if (put.has(id)) return;
      put.add(id);
      changed += this.q.putObject.run(id, type).changes;
    };
    for (const o of prepared.objects) putObject(o.id, o.type);
    // Indexed loops: most events have no objects, and for…of makes an iterator for each even then.
    const { events } = prepared;
    for (let i = 0; i < events.length; i++) {
      const objects = events[i]!.objects;
      for (let j = 0; j < objects.length; j++) putObject(objects[j]!.id, objects[j]!.type);
    }
    for (const r of prepared.relations) changed += this.q.putRelation.run(r.fromId, r.toId, r.qualifier).changes;
    return changed > 0;
  }

  /** Whether the counted state is held in memory at the current data version (a snapshot then costs no counter reads). */
  get tallyWarm(): boolean {
    return this.tally !== undefined && this.tallyVersion === this.dataVersion;
  }

  /** The counted state; served from memory while no other connection has written. */
  currentTally(): Tally {
    const version = this.dataVersion;
    if (!this.tally || this.tallyVersion !== version) {
      // The version and the counters read in one read transaction (a savepoint inside a caller's): read apart, a
      // writer on another connection between the two would label these counts with the version before them.
      this.db.transaction(() => {
        const at = this.dataVersion;
        this.tally = tallyFromRows(this.counters.rows());
        this.tallyVersion = at;
      })();
    }
    return this.tally!;
  }

  /** Cases and events counted (the tally's totals, read without the tally when it is not held for this version). */
  totals(): { cases: number; events: number } {
    if (this.tally && this.tallyVersion === this.dataVersion) return { cases: this.tally.cases, events: this.tally.events };
    // One read transaction: a merge by another connection between the two reads would count its deltas twice.
    return this.db.transaction(() => this.counters.totals())();
  }

  snapshot(): ProjectSnapshot {
    return this.db.transaction(() => {
      const tally = structuredClone(this.currentTally());
      const period = { start: metaNumber(this.getMeta('period_start')), end: metaNumber(this.getMeta('period_end')) };
      const meta = this.allMeta();
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

  /** Every case's events in case order, one case at a time. A read: pending case changes are laid over the table, never merged here. */
  traces(): Generator<Event[]> {
    return this.log.traces(this.cases.pendingBatches() > 0 ? this.cases.pending() : undefined);
  }

  /** Recomputes every counter from the kept events (after a change to contribution, say); refused once events were pruned, whose counts only the counters hold. */
  rebuild(): void {
    if (!this.folds.isEmpty) {
      throw new EngineError('state_pruned', `${this.getMeta('pruned_events') ?? 'some'} events of this state were pruned (retention) and cannot be recounted; counting version ${this.getMeta('counting') ?? '?'} must be carried forward by a migration, not a rebuild`);
    }
    const all = new Counters(new KeyBook());
    for (const trace of this.traces()) contribute(all, trace, 1);
    this.db
      .transaction(() => {
        this.counters.replace(all.rows());
        this.q.setMeta.run('data_version', String(this.dataVersion + 1));
      })
      .immediate();
    this.tally = undefined;
    this.cache.clear();
    this.writtenVersion = this.dataVersion;
  }

  /** Dead letters in arrival order: of one source (or all), after id `after`. */
  deadLetters(options: { source?: string; after?: number; limit?: number } = {}): DeadLetter[] {
    const after = options.after ?? 0;
    const limit = options.limit ?? 100;
    const rows = options.source === undefined ? this.q.allDeadLetters.all(after, limit) : this.q.deadLetters.all(options.source, after, limit);
    return rows.map((r) => ({ ...r, raw: r.raw ?? undefined }));
  }

  deadLetterCount(source: string): number {
    return this.q.deadLetterCount.get(source)!.n;
  }

  /**
   * Re-applies a source's dead letters through `remap` (a fixed mapping), exactly once:
   * in one transaction, the letters that now map are deleted and their records applied
   * (a record the store still refuses becomes a dead letter again, with its new reason);
   * the others keep their place with the new reason. Replaying twice changes nothing more.
   */
  replayDeadLetters(source: string, remap: (letter: DeadLetter) => Remapped): ReplayResult {
    const out: ReplayResult = { replayed: 0, failing: 0, dataVersion: 0 };
    const setReason = this.db.prepare('UPDATE dead_letter SET reason = ? WHERE id = ?');
    try {
      this.db
        .transaction(() => {
          const records: unknown[] = [];
          const locations: string[] = [];
          const raws: (Uint8Array | undefined)[] = [];
          for (let after = 0; ; ) {
            const letters = this.deadLetters({ source, after, limit: 1000 });
            if (letters.length === 0) break;
            for (const letter of letters) {
              const mapped = remap(letter);
              if ('reason' in mapped) {
                out.failing += 1;
                setReason.run(mapped.reason, letter.id);
                continue;
              }
              this.q.dropDeadLetter.run(letter.id);
              records.push(mapped.record);
              locations.push(letter.location);
              raws.push(letter.raw);
            }
            after = letters[letters.length - 1]!.id;
          }
          if (records.length === 0) return;
          this.q.setMeta.run('rejected', String(Math.max(0, Number(this.getMeta('rejected') ?? '0') - records.length)));
          // Nested: the apply runs in a savepoint of this transaction, so the deletes and the events commit together.
          const applied = this.apply({ records, locations, raws }, undefined, source);
          out.replayed = records.length - applied.rejected;
          out.failing += applied.rejected;
        })
        .immediate();
    } catch (error) {
      this.forgetCopies();
      this.tally = undefined;
      throw error;
    }
    out.dataVersion = this.dataVersion;
    return out;
  }

  /** Every case id (stored or pending): what a merge of partition states checks for cases split across them. */
  caseIds(): Set<string> {
    return this.db.transaction(() => {
      const ids = this.cases.ids();
      // Pruned cases stay cases (retention.ts), even once a retraction took every event they kept.
      for (const id of this.folds.ids()) ids.add(id);
      return ids;
    })();
  }

  /** Every object and object-to-object relation: merged across partition states by id. */
  objects(): { objects: { id: string; type: string }[]; relations: { fromId: string; toId: string; qualifier: string }[] } {
    return this.db.transaction(() => ({
      objects: this.db.prepare<[], { id: string; type: string }>('SELECT id, type FROM object').all(),
      relations: this.db.prepare<[], { fromId: string; toId: string; qualifier: string }>('SELECT from_id AS fromId, to_id AS toId, qualifier FROM object_relation').all(),
    }))();
  }

  private sourceStat: Statement<[string, number, number, number]> | undefined;

  /** Removes a source-level fact (a dataset's reading facts, when the dataset that set them is deleted): no version change. */
  deleteMeta(key: string): void {
    this.db.prepare('DELETE FROM meta WHERE key = ?').run(key);
  }

  /** Adds a positioned batch's counts to its source's (in the batch's transaction): a dataset's own summary. */
  private countSource(source: string, result: ApplyResult): void {
    this.sourceStat ??= this.db.prepare<[string, number, number, number]>(
      `INSERT INTO source_stat (source, accepted, duplicates, rejected) VALUES (?, ?, ?, ?) ON CONFLICT (source) DO UPDATE SET
       accepted = accepted + excluded.accepted, duplicates = duplicates + excluded.duplicates, rejected = rejected + excluded.rejected`,
    );
    this.sourceStat.run(source, result.accepted, result.duplicates, result.rejected);
  }

  /**
   * What one source's batches did, summed (accepted, duplicates, rejected), and what it holds now: the
   * events it sent that are kept, and their cases.
   */
  sourceCounts(source: string): SourceCounts {
    return this.db.transaction(() => {
      const stat = this.db
        .prepare<[string], { accepted: number; duplicates: number; rejected: number }>('SELECT accepted, duplicates, rejected FROM source_stat WHERE source = ?')
        .get(source);
      let events = 0;
      const cases = new Set<string>();
      for (const r of this.log.heldRows(source)) {
        events += 1;
        cases.add(r.case_id);
      }
      return { accepted: stat?.accepted ?? 0, duplicates: stat?.duplicates ?? 0, rejected: stat?.rejected ?? 0, events, cases: cases.size };
    })();
  }

  /**
   * Takes back everything one source sent (a deleted dataset), in one transaction: the events no
   * other source also sent are deleted and each case they belonged to is counted again without
   * them (the path of a replaced body: the old contribution retracted, the new one added), the
   * log digest, period and case sample follow, its dead letters go (and the rejected count with
   * them), and its position and counts are cleared, so the same source may be applied again from
   * the start. An event another source also sent stays. Source '' (batches without a position) is
   * never taken back.
   */
  retractSource(source: string): RetractResult {
    if (source === '') throw new EngineError('invalid_argument', 'events applied without a source position cannot be retracted');
    const result: RetractResult = { removed: 0, cases: 0, deadLetters: 0, dataVersion: 0 };
    this.renewBookIfFull();
    try {
      this.db.transaction(() => {
        result.dataVersion = this.dataVersion;
        this.syncCopies();
        const released = this.log.release(source);
        result.deadLetters = this.db.prepare('DELETE FROM dead_letter WHERE source = ?').run(source).changes;
        if (result.deadLetters) {
          const left = Math.max(0, Number(this.getMeta('rejected') ?? '0') - result.deadLetters);
          if (left > 0) this.q.setMeta.run('rejected', String(left));
          else this.db.prepare("DELETE FROM meta WHERE key = 'rejected'").run();
        }
        this.db.prepare('DELETE FROM position WHERE source = ?').run(source);
        this.db.prepare('DELETE FROM source_stat WHERE source = ?').run(source);
        result.removed = released.ids.length;
        result.cases = released.cases.size;
        if (result.removed === 0 && result.deadLetters === 0) return;

        if (this.scratch?.book === this.book) this.scratch.reset();
        else this.scratch = new Counters(this.book);
        const delta = this.scratch;
        // Cases a few thousand at a time: each batch of cases holds its removed events in memory, not the whole source's.
        const digest = new DigestSum(this.getMeta('log_digest') ?? EMPTY_DIGEST);
        const all = [...released.cases];
        const emptied = new Set<string>();
        for (let i = 0; i < all.length; i += RETRACT_CASES) {
          const changes: BatchChanges = { digest, cases: new Map(), replacedKeys: new Set(), addedMin: Infinity, addedMax: -Infinity, accepted: 0, duplicates: 0 };
          for (const caseId of all.slice(i, i + RETRACT_CASES)) {
            const rows = this.log.rows(this.cases.rowIds(caseId));
            const gone = rows.filter((r) => released.has(r.id));
            // A pruned case stays whatever goes: its pruned events are still counted.
            if (gone.length === rows.length && !((this.prunedSeen ?? 0) > 0 && this.folds.get(caseId))) emptied.add(caseId);
            for (const r of gone) {
              changes.replacedKeys.add(r.key);
              digest.add(r.digest, -1);
            }
            // Taken away as a replaced body is: listed in `replaced`, its key in `replacedKeys`.
            changes.cases.set(caseId, { added: [], ids: [], replaced: gone.map(unpackRow) });
          }
          this.updateCases(changes, delta);
        }
        this.cases.endBatch();
        this.counters.add(delta);
        this.log.remove(released);
        const p = this.q.period.get()!;
        this.q.setMeta.run('period_start', String(p.start ?? ''));
        this.q.setMeta.run('period_end', String(p.end ?? ''));
        const sample = JSON.parse(this.getMeta('case_id_sample') ?? '[]') as string[];
        if (sample.some((c) => emptied.has(c))) {
          const left = [...this.caseIds()].filter((c) => !emptied.has(c));
          this.q.setMeta.run('case_id_sample', JSON.stringify(mergeCaseSample([], left) ?? []));
        }
        result.dataVersion += 1;
        this.q.setMeta.run('data_version', String(result.dataVersion));
        this.q.setMeta.run('log_digest', digest.toHex());
      }).immediate();
    } catch (error) {
      this.forgetCopies();
      this.tally = undefined;
      throw error;
    }
    // The key index and case folds still know the deleted rows: both are rebuilt as needed.
    this.log.forget();
    this.cache.clear();
    this.tally = undefined;
    this.writtenVersion = result.dataVersion;
    return result;
  }

  /**
   * One step of a retention pass (engine/store/retention.ts), in its own immediate transaction: scans
   * up to `rows` kept rows after row `after`, reads the rows of at most about PRUNE_EVENTS of their
   * cases, and prunes those whose every event is more than `keepMs` older than the newest event. No
   * counter changes, so neither does the data version.
   */
  pruneStep(keepMs: number, after = 0, rows = PRUNE_ROWS): PruneStep {
    if (!(keepMs >= 0)) throw new EngineError('invalid_argument', 'keepMs must be a non-negative number of milliseconds');
    this.renewBookIfFull();
    const step = this.writing(() => {
      if (this.scratch?.book === this.book) this.scratch.reset();
      else this.scratch = new Counters(this.book);
      const ctx = { db: this.db, log: this.log, cases: this.cases, folds: this.folds, scratch: this.scratch };
      const done = pruneCases({ ...ctx, meta: (key) => this.getMeta(key), setMeta: (key, value) => this.q.setMeta.run(key, value) }, keepMs, after, rows, PRUNE_EVENTS);
      // This connection dropped the pruned keys from its own index; its folds are unchanged.
      this.prunedSeen = Number(this.getMeta('pruned_events') ?? '0');
      return done;
    });
    return step;
  }

  /** A whole pass at once (tests, small stores): steps until every case was looked at. */
  prune(keepMs: number, rows = PRUNE_ROWS): { cases: number; events: number } {
    const total = { cases: 0, events: 0 };
    for (let after: number | undefined = 0; after !== undefined; ) {
      const step = this.pruneStep(keepMs, after, rows);
      total.cases += step.cases;
      total.events += step.events;
      after = step.next;
    }
    return total;
  }

  /** Deletes dead letters (by age, oldest first, or by id), keeping `rejected` and the sources' counts true; a change is a new data version (the document states `rejected`). */
  pruneDeadLetters(which: DeadLetterSelection): number {
    let from = 0;
    const n = this.writing(() => {
      const deleted = deleteDeadLetters(this.db, which, (key) => this.getMeta(key), (key, value) => this.q.setMeta.run(key, value));
      from = this.dataVersion;
      if (deleted > 0) this.q.setMeta.run('data_version', String(from + 1));
      return deleted;
    });
    // The counters did not change: a tally read at the version this pass started from still holds (not one of a
    // version another connection made meanwhile: the version is read under the write lock, not after it).
    if (n > 0 && this.tally && this.tallyVersion === from) this.tallyVersion = from + 1;
    return n;
  }

  /** The oldest dead letters, by time received then id. */
  oldestDeadLetters(limit: number): { id: number; receivedAt: number }[] {
    return oldestDeadLetters(this.db, limit);
  }

  /** Dead letters kept, of every source. */
  deadLetterTotal(): number {
    return this.db.prepare<[], number>('SELECT count(*) FROM dead_letter').pluck().get()!;
  }

  /**
   * Stored bytes (the refused record and the message's own bytes) of the newest `n` dead letters: right after
   * a batch that refused `n` records, what it added. Reads those rows only (a tenant's quota: api/usage.ts).
   */
  newestDeadLetterBytes(n: number): number {
    if (n <= 0) return 0;
    return this.db
      .prepare<[number], number>('SELECT coalesce(sum(octet_length(payload) + coalesce(octet_length(raw), 0)), 0) FROM (SELECT payload, raw FROM dead_letter ORDER BY id DESC LIMIT ?)')
      .pluck()
      .get(n)!;
  }

  /** Runs a write other than a batch in an immediate transaction, with the copies synchronised first and dropped if it fails. */
  private writing<T>(fn: () => T): T {
    let out: T;
    try {
      out = this.db.transaction(() => {
        this.syncCopies();
        return fn();
      }).immediate();
    } catch (error) {
      this.forgetCopies();
      this.tally = undefined;
      throw error;
    }
    // What was written was in step with the copies (or they were dropped), so this is the version they hold.
    this.writtenVersion = this.dataVersion;
    return out;
  }
}

/** Rows scanned, and rows of the cases met read, per retention step at most: each step one transaction of a few milliseconds. */
const PRUNE_ROWS = 1000;
const PRUNE_EVENTS = 250;

/** Cases re-counted at a time when a source is retracted. */
const RETRACT_CASES = 2000;

/** A source's own counts: what its batches did, and what of it is kept now. */
export interface SourceCounts {
  /** Events it brought that the project did not have (or whose body won). */
  accepted: number;
  /** Records whose event the project already had. */
  duplicates: number;
  /** Records that could not be read or failed validation (its dead letters). */
  rejected: number;
  /** Kept events it sent (accepted by it, or also sent by it). */
  events: number;
  /** The cases of those events. */
  cases: number;
}

/** What retracting a source did. */
export interface RetractResult {
  /** Events deleted (held by no other source). */
  removed: number;
  /** Cases counted again without them. */
  cases: number;
  /** Its dead letters deleted. */
  deadLetters: number;
  dataVersion: number;
}

interface DeadLetterRow {
  id: number;
  source: string;
  location: string;
  reason: string;
  payload: string;
  raw: Buffer | null;
  receivedAt: number;
}

/** A message's bytes as SQLite binds a blob (a Buffer: bytes prepared on another thread arrive as a plain Uint8Array), at most MAX_RAW_BYTES. */
function bounded(raw: Uint8Array): Buffer {
  const bytes = Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  return bytes.byteLength > MAX_RAW_BYTES ? bytes.subarray(0, MAX_RAW_BYTES) : bytes;
}

function metaNumber(value: string | undefined): number | null {
  return value ? Number(value) : null;
}

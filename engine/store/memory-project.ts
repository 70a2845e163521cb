import { contribute, COUNTING_VERSION } from '../contribution.js';
import { cmp, compareEvents, DEFAULT_EVENT_LIMITS, type Event, type EventLimits } from '../event.js';
import { addTally, type Tally } from '../tally.js';
import { CASE_ID_SAMPLE } from './case-sample.js';
import { Counters, tallyFromRows } from './codec.js';
import { KeyBook } from './counter-keys.js';
import { DigestSum, EMPTY_DIGEST, sumDigests } from './digest.js';
import { isPrepared, prepareBatch, type PreparedBatch } from './prepare.js';
import { admitObjectTypes } from './object-types.js';
import type { ApplyResult, Batch, Position, ProjectSnapshot } from './types.js';

const REJECTIONS_SHOWN = 20;

/** What one MemoryProject read of a log, ready to cross to another thread (structured-clonable). */
export interface MemoryPart {
  tally: Tally;
  /** Its log digest: the sum of its events' digests. */
  digest: string;
  events: number;
  /** Its events' first and last times (Infinity and -Infinity when it has none). */
  start: number;
  end: number;
  caseIds: string[];
  rejected: number;
}

/**
 * A project held in memory for one document: what `pcg graph FILE` needs, with
 * no SQLite file. It follows ProjectStore.apply's rules batch by batch (one
 * body per key, the smallest digest winning; a batch that changes anything is
 * one data version; objects first-typed win) but counts once at the end: each
 * case's sorted events folded by the same `contribute` the store and the oracle
 * use. So its snapshot, and the document, are those of a stored project fed the
 * same batches, byte for byte (test/document/memory.test.ts holds them equal).
 */
export class MemoryProject {
  private readonly events = new Map<string, Event>();
  private readonly meta = new Map<string, string>();
  private readonly objectTypes = new Map<string, string>();
  /** The object types taken (PCG_LIMIT_OBJECT_TYPES_PER_PROJECT). */
  private readonly types = new Set<string>();
  private readonly relations = new Set<string>();
  private readonly caseIds = new Set<string>();
  private readonly positions = new Map<string, number>();
  private dataVersion = 0;
  private rejected = 0;
  private tally: Tally | undefined;

  setMeta(key: string, value: string): void {
    this.meta.set(key, value);
  }

  /** The bounds every event is checked against (a prepared batch must have been checked against these). */
  readonly limits: EventLimits;

  constructor(limits: EventLimits = DEFAULT_EVENT_LIMITS) {
    this.limits = limits;
  }

  apply(batch: Batch | PreparedBatch, position?: Position): ApplyResult {
    const result: ApplyResult = { applied: false, accepted: 0, duplicates: 0, rejected: 0, rejections: [], dataVersion: this.dataVersion };
    if (position) {
      const at = `${position.source}\u0000${position.partition}`;
      const stored = this.positions.get(at);
      if (stored !== undefined && stored >= position.offset) return result;
      this.positions.set(at, position.offset);
    }
    result.applied = true;
    this.tally = undefined;
    // The store's rules, from the same prepared form (bodies are not kept here, so not packed).
    const given = isPrepared(batch) ? batch : prepareBatch(batch, this.limits, false);
    // The store's bound on object types, by the same rule.
    const prepared = admitObjectTypes(given, () => this.types, this.limits.objectTypesPerProject);
    result.duplicates += prepared.duplicates;
    for (const r of prepared.rejected) {
      if (result.rejections.length < REJECTIONS_SHOWN) result.rejections.push({ location: r.location, reason: r.reason });
    }
    result.rejected = prepared.rejected.length;
    this.rejected += result.rejected;
    for (const e of prepared.events) {
      const kept = this.events.get(e.key);
      if (kept && kept.digest <= e.digest) {
        result.duplicates += 1;
        continue;
      }
      this.events.set(e.key, e);
      this.caseIds.add(e.caseId);
      result.accepted += 1;
    }
    let objectsChanged = false;
    const putObject = (id: string, type: string) => {
      if (this.objectTypes.has(id)) return;
      this.objectTypes.set(id, type);
      objectsChanged = true;
    };
    for (const o of prepared.objects) putObject(o.id, o.type);
    for (const e of prepared.events) for (const o of e.objects) putObject(o.id, o.type);
    for (const r of prepared.relations) {
      const key = JSON.stringify([r.fromId, r.toId, r.qualifier]);
      if (!this.relations.has(key)) {
        this.relations.add(key);
        objectsChanged = true;
      }
    }
    if (result.accepted > 0 || objectsChanged || result.rejected > 0) this.dataVersion += 1;
    result.dataVersion = this.dataVersion;
    return result;
  }

  /** Cases and events counted (IngestTarget's totals). */
  totals(): { cases: number; events: number } {
    const { cases, events } = this.currentTally();
    return { cases, events };
  }

  /** The counted state: every case folded once. */
  currentTally(): Tally {
    if (this.tally) return this.tally;
    const byCase = new Map<string, Event[]>();
    for (const e of this.events.values()) {
      const trace = byCase.get(e.caseId);
      if (trace) trace.push(e);
      else byCase.set(e.caseId, [e]);
    }
    const counters = new Counters(new KeyBook());
    for (const trace of byCase.values()) contribute(counters, trace.sort(compareEvents), 1);
    return (this.tally = tallyFromRows(counters.rows()));
  }

  /** What this project read, for a snapshot together with parts of the same log read elsewhere (snapshotWith). */
  part(): MemoryPart {
    const digest = new DigestSum(EMPTY_DIGEST);
    let start = Infinity;
    let end = -Infinity;
    for (const e of this.events.values()) {
      digest.add(e.digest, 1);
      if (e.time < start) start = e.time;
      if (e.time > end) end = e.time;
    }
    return { tally: this.currentTally(), digest: digest.toHex(), events: this.events.size, start, end, caseIds: [...this.caseIds], rejected: this.rejected };
  }

  snapshot(): ProjectSnapshot {
    return this.snapshotWith([], this.dataVersion);
  }

  /**
   * The snapshot of this project and `others`, parts of the same log read by other MemoryProjects (on other
   * threads), as if one project had read it all: each case must be in one part only, and the data version is
   * the whole reading's (the batches it would have applied), given by the caller.
   */
  snapshotWith(others: readonly MemoryPart[], dataVersion: number): ProjectSnapshot {
    const parts = [this.part(), ...others];
    const tally = structuredClone(parts[0]!.tally);
    for (const p of others) addTally(tally, p.tally);
    const logDigest = sumDigests(parts.map((p) => p.digest));
    const events = parts.reduce((n, p) => n + p.events, 0);
    const start = Math.min(...parts.map((p) => p.start));
    const end = Math.max(...parts.map((p) => p.end));
    const rejected = parts.reduce((n, p) => n + p.rejected, 0);
    const caseIds = others.length ? new Set(parts.flatMap((p) => p.caseIds)) : this.caseIds;
    const meta: Record<string, string> = { ...Object.fromEntries(this.meta), counting: String(COUNTING_VERSION), data_version: String(dataVersion) };
    if (dataVersion > 0) meta.log_digest = logDigest;
    if (rejected > 0) meta.rejected = String(rejected);
    if (events > 0) Object.assign(meta, { period_start: String(start), period_end: String(end) });
    if (caseIds.size > 0) meta.case_id_sample = JSON.stringify([...caseIds].sort(cmp).slice(0, CASE_ID_SAMPLE));
    const objectCounts = new Map<string, number>();
    for (const type of [...this.objectTypes.values()].sort(cmp)) objectCounts.set(type, (objectCounts.get(type) ?? 0) + 1);
    const grouped = new Map<string, number>();
    for (const key of this.relations) {
      const [from, to, qualifier] = JSON.parse(key) as [string, string, string];
      const fromType = this.objectTypes.get(from);
      const toType = this.objectTypes.get(to);
      if (fromType === undefined || toType === undefined) continue;
      const k = JSON.stringify([fromType, toType, qualifier]);
      grouped.set(k, (grouped.get(k) ?? 0) + 1);
    }
    const objectRelations = [...grouped.keys()]
      .sort()
      .map((k) => {
        const [fromType, toType, qualifier] = JSON.parse(k) as [string, string, string];
        return { fromType, toType, qualifier, count: grouped.get(k)! };
      })
      .sort((a, b) => cmp(a.fromType, b.fromType) || cmp(a.toType, b.toType) || cmp(a.qualifier, b.qualifier));
    return {
      tally,
      dataVersion,
      logDigest: dataVersion > 0 ? logDigest : EMPTY_DIGEST,
      periodStart: events ? start : undefined,
      periodEnd: events ? end : undefined,
      rejected,
      meta,
      objectCounts,
      objectRelations,
    };
  }
}

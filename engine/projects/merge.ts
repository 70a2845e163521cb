import { cmp } from '../event.js';
import { addTally, emptyTally } from '../tally.js';
import { CASE_ID_SAMPLE } from '../store/case-sample.js';
import { EMPTY_DIGEST, sumDigests } from '../store/digest.js';
import type { ProjectSnapshot } from '../store/project-store.js';

/** What a partition state adds to a merge besides its snapshot: its objects, and its case ids when the merge checks for split cases. */
export interface MergePart {
  snapshot: ProjectSnapshot;
  objects?: { objects: { id: string; type: string }[]; relations: { fromId: string; toId: string; qualifier: string }[] };
  caseIds?: ReadonlySet<string>;
}

/** Meta counts of each part that add up (retention's, engine/store/retention.ts). */
const SUMMED = ['late_unsequenced', 'pruned_events', 'profile_partial'];

/** Meta the merge derives from the parts' own numbers; the rest is taken from the first part that has it (the project's own store comes first). */
const DERIVED = new Set(['data_version', 'log_digest', 'rejected', 'period_start', 'period_end', 'case_id_sample', 'split_cases', 'event_id_floor', ...SUMMED]);

/**
 * The snapshot of a project kept in several state files (its own store and
 * one per stream partition). Every counter is a sum over cases, so while each
 * case lives in one part the merged tally is the tally of the whole log: counts
 * add, sketches add bucket by bucket, the log digest (a sum of event digests)
 * adds modulo 2^128, periods widen. The data version is the sum of the parts'
 * versions: each part's only grows, so the sum grows with any change.
 *
 * A case found in two parts (a topic not keyed by case id) is counted once
 * per part; `split_cases` in meta says how many, and the reading says so.
 */
export function mergeSnapshots(parts: readonly MergePart[]): ProjectSnapshot {
  if (parts.length === 1 && !parts[0]!.caseIds) return parts[0]!.snapshot;
  const tally = emptyTally();
  let dataVersion = 0;
  let rejected = 0;
  let start: number | undefined;
  let end: number | undefined;
  const meta: Record<string, string> = {};
  let sample: string[] = [];
  for (const { snapshot: s } of parts) {
    addTally(tally, s.tally);
    dataVersion += s.dataVersion;
    rejected += s.rejected;
    if (s.periodStart !== undefined && (start === undefined || s.periodStart < start)) start = s.periodStart;
    if (s.periodEnd !== undefined && (end === undefined || s.periodEnd > end)) end = s.periodEnd;
    for (const [k, v] of Object.entries(s.meta)) if (!DERIVED.has(k) && !(k in meta)) meta[k] = v;
    sample = sample.concat(JSON.parse(s.meta.case_id_sample ?? '[]') as string[]);
    for (const k of SUMMED) if (s.meta[k]) meta[k] = String(Number(meta[k] ?? '0') + Number(s.meta[k]));
  }
  const logDigest = sumDigests(parts.map((p) => p.snapshot.logDigest));
  Object.assign(meta, {
    data_version: String(dataVersion),
    log_digest: logDigest,
    rejected: String(rejected),
    ...(start === undefined ? {} : { period_start: String(start), period_end: String(end) }),
  });
  if (sample.length) meta.case_id_sample = JSON.stringify([...new Set(sample)].sort(cmp).slice(0, CASE_ID_SAMPLE));
  const split = splitCases(parts);
  if (split > 0) meta.split_cases = String(split);
  const { objectCounts, objectRelations } = mergeObjects(parts);
  return { tally, dataVersion, logDigest, periodStart: start, periodEnd: end, rejected, meta, objectCounts, objectRelations };
}

/** Case ids found in more than one part. */
function splitCases(parts: readonly MergePart[]): number {
  const withIds = parts.filter((p) => p.caseIds && p.caseIds.size > 0);
  if (withIds.length < 2) return 0;
  const seen = new Set<string>();
  const split = new Set<string>();
  for (const { caseIds } of withIds) {
    for (const id of caseIds!) {
      if (seen.has(id)) split.add(id);
      else seen.add(id);
    }
  }
  return split.size;
}

/** Objects are distinct by id across parts: counted once, relations once. */
function mergeObjects(parts: readonly MergePart[]): Pick<ProjectSnapshot, 'objectCounts' | 'objectRelations'> {
  const withObjects = parts.filter((p) => p.snapshot.objectCounts.size > 0);
  if (withObjects.length <= 1) {
    const only = withObjects[0]?.snapshot;
    return { objectCounts: only?.objectCounts ?? new Map(), objectRelations: only?.objectRelations ?? [] };
  }
  const typeOf = new Map<string, string>();
  const relations = new Set<string>();
  for (const p of withObjects) {
    if (!p.objects) throw new Error('mergeSnapshots: a part with objects must list them');
    for (const o of p.objects.objects) if (!typeOf.has(o.id)) typeOf.set(o.id, o.type);
    for (const r of p.objects.relations) relations.add(JSON.stringify([r.fromId, r.toId, r.qualifier]));
  }
  const counts = new Map<string, number>();
  for (const type of typeOf.values()) counts.set(type, (counts.get(type) ?? 0) + 1);
  const objectCounts = new Map([...counts].sort((a, b) => cmp(a[0], b[0])));
  const grouped = new Map<string, number>();
  for (const key of relations) {
    const [from, to, qualifier] = JSON.parse(key) as [string, string, string];
    const fromType = typeOf.get(from);
    const toType = typeOf.get(to);
    if (fromType === undefined || toType === undefined) continue;
    const k = JSON.stringify([fromType, toType, qualifier]);
    grouped.set(k, (grouped.get(k) ?? 0) + 1);
  }
  const objectRelations = [...grouped]
    .map(([k, count]) => {
      const [fromType, toType, qualifier] = JSON.parse(k) as [string, string, string];
      return { fromType, toType, qualifier, count };
    })
    .sort((a, b) => cmp(a.fromType, b.fromType) || cmp(a.toType, b.toType) || cmp(a.qualifier, b.qualifier));
  return { objectCounts, objectRelations };
}

/** An empty tally's snapshot, for a project with no state yet. */
export function emptySnapshot(): ProjectSnapshot {
  return { tally: emptyTally(), dataVersion: 0, logDigest: EMPTY_DIGEST, periodStart: undefined, periodEnd: undefined, rejected: 0, meta: {}, objectCounts: new Map(), objectRelations: [] };
}

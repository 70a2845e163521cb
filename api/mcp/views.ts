import type { Decision, GraphDocument, Plain } from '../../engine/document/types.js';
import { TYPICAL_PATH_SHARE } from '../../engine/render/index.js';
import { SECTION_KEYS, sectionRow, type McpView } from '../../engine/render/sections.js';
import { ApiError } from '../errors.js';

/**
 * Views of a graph document sized for a model's context: the summary, one
 * section a page at a time, what changed between two versions, one decision
 * point explained, and the cap every answer keeps under. Pure functions over
 * documents, used by every transport alike (tools.ts).
 */

/** The default cap on one answer's JSON text, in characters (~10k tokens). */
export const DEFAULT_MAX_CHARS = 40_000;

/** The sections `get_graph` pages through, by view name (engine/render/sections.ts: the rows with `mcp`). */
const VIEW_KEYS = new Map(
  SECTION_KEYS.flatMap((k) => {
    const m = sectionRow(k).mcp;
    return m ? [[m.view, k] as const] : [];
  }),
);
export const SECTIONS = [...VIEW_KEYS.keys()] as [McpView, ...McpView[]];
export type Section = McpView;

/** The document's list behind each section (`rules` are the sequence rules). */
export function sectionItems(doc: GraphDocument, section: Section): unknown[] {
  return doc[VIEW_KEYS.get(section)!] as unknown[];
}

export const graphUri = (tenantId: string, projectId: string) => `pcg://${tenantId}/${projectId}/graph`;

const TOP = 5;
const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** Counts of every list of the document (the rows `counted`), the activities among the nodes after them. */
export function countsOf(doc: GraphDocument): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const k of SECTION_KEYS.filter((key) => sectionRow(key).counted)) {
    counts[k] = (doc[k] as unknown[]).length;
    if (k === 'nodes') counts.activities = doc.nodes.filter((n) => n.kind === 'activity').length;
  }
  return counts;
}

const whenText = (w: Plain): string => {
  if (w !== null && typeof w === 'object' && !Array.isArray(w) && 'attribute' in w) return `${String(w.attribute)} ${String(w.op ?? '=')} ${JSON.stringify(w.value)}`;
  return typeof w === 'string' ? w : JSON.stringify(w);
};

/** A decision's best rule in one line, or undefined when it has none. */
function ruleLine(r: Decision['rules'][number]): string {
  return `when ${r.when.map(whenText).join(' and ')} then '${r.then}' (holds in ${pct(r.holds)} of ${r.cases} cases, ${r.evidence.strength})`;
}

const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;

/** The whole document in a few kilobytes: counts, the main path, the top variants, outcomes and decisions. */
export function summarize(doc: GraphDocument) {
  const main = doc.variants.find((v) => v.class === 'main');
  const topDecisions = [...doc.decisions].sort((a, b) => b.evidence.cases - a.evidence.cases || (a.id < b.id ? -1 : 1)).slice(0, TOP);
  return {
    source: {
      data_version: doc.source.data_version,
      case_notion: doc.source.case_notion,
      cases: doc.source.cases,
      events: doc.source.events,
      period_start: doc.source.period_start,
      period_end: doc.source.period_end,
      time_basis: doc.source.time_basis,
    },
    process: { case_represents: doc.process.case_represents, objective: doc.process.objective },
    counts: countsOf(doc),
    // The commonest variant, marked when it is not what a case typically does (an agent would otherwise repeat it as the process).
    main_path: main ? { variant: main.id, path: main.path, cases: main.cases, share: main.share, typical: main.share >= TYPICAL_PATH_SHARE } : null,
    top_variants: [...doc.variants]
      .sort((a, b) => b.cases - a.cases)
      .slice(0, TOP)
      .map((v) => ({ id: v.id, class: v.class, cases: v.cases, share: v.share, steps: v.path.length, path: v.path })),
    outcomes: doc.outcomes.slice(0, TOP).map((o) => ({ id: o.id, end_activity: o.end_activity, kind: o.kind, cases: o.cases, share: o.share })),
    top_decisions: topDecisions.map((d) => ({
      id: d.id,
      at: d.at,
      cases: d.evidence.cases,
      branches: d.branches.slice(0, TOP).map((b) => ({ to: b.to, share: b.share })),
      explained: d.explained,
      rules: d.rules.length,
      best_rule: d.rules[0] ? ruleLine(d.rules[0]) : null,
    })),
    stages: doc.stages.map((s) => ({ id: s.id, name: s.name, activities: s.activities.length })),
    process_tree: clip(doc.model.process_tree, 600),
    hint: `view=${SECTIONS.map((v) => `'${v}'`).join('|')} pages through one section; view='full' answers the whole document when it fits; explain_decision reads one decision point.`,
  };
}

/** One decision point read out: branches with their hand-off waits, rules with evidence, and the open question about it. */
export function explainDecision(doc: GraphDocument, which: string) {
  const d = doc.decisions.find((x) => x.id === which) ?? doc.decisions.find((x) => x.at === which);
  if (!d) {
    const known = doc.decisions.map((x) => `${x.id} (at '${x.at}')`).slice(0, 30);
    throw new ApiError('not_found', `no decision '${which}' in this document; decisions: ${known.length ? known.join(', ') : 'none'}`);
  }
  // A decision is at an activity (its label); edges run between node ids.
  const at = doc.nodes.find((n) => n.kind === 'activity' && n.label === d.at);
  const labels = new Map(doc.nodes.map((n) => [n.id, n.kind === 'activity' ? n.label : n.kind]));
  const out = at ? doc.edges.filter((e) => e.from === at.id) : [];
  const reading = [
    `At '${d.at}', ${d.evidence.of_cases} cases reach the decision; ${d.branches.map((b) => `${pct(b.share)} go on to '${b.to}' (${b.cases})`).join(', ')}.`,
    d.rules.length
      ? `${d.rules.length} rule${d.rules.length > 1 ? 's' : ''} ${d.explained ? 'explain' : 'partly explain'} the choice (always guessing the commonest branch is right in ${pct(d.baseline_share)}): ${d.rules.map(ruleLine).join('; ')}.`
      : `No attribute known at that point explains the choice better than always guessing the commonest branch (right in ${pct(d.baseline_share)}).`,
    `Evidence: ${d.evidence.strength}, ${d.evidence.cases} of ${d.evidence.of_cases} cases; ${d.evidence.method}`,
  ];
  const questionText = (q: Plain) => (typeof q === 'string' ? q : isObject(q) && typeof q.question === 'string' ? q.question : JSON.stringify(q));
  const questions = doc.open_questions.filter((q) => questionText(q).startsWith(`After '${d.at}',`));
  return {
    decision: d,
    reading,
    edges_out: out.map((e) => ({ id: e.id, to: e.to, to_activity: labels.get(e.to) ?? e.to, kind: e.kind, cases: e.cases, share_of_from: e.share_of_from, median_wait_hours: e.median_wait_hours, slow_wait_hours: e.slow_wait_hours })),
    open_questions: questions,
  };
}

type Item = Record<string, unknown> & { id: string };

/** The sections `diff` compares, by view name (the rows whose `mcp` has `diff`). */
const DIFF_KINDS = Object.fromEntries(
  SECTION_KEYS.flatMap((k) => {
    const m = sectionRow(k).mcp;
    return m?.diff ? [[m.view, (d: GraphDocument) => d[k] as unknown[]] as const] : [];
  }),
) as Record<string, (d: GraphDocument) => unknown[]>;
export type DiffKind = string;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
/** Free-text explanations move with every count; the counts themselves are compared. */
const IGNORED = new Set(['evidence.method']);

/** The fields of two versions of one item that differ, one level into objects (`evidence.cases`). */
function changedFields(a: Record<string, unknown>, b: Record<string, unknown>, prefix = ''): Record<string, { from: unknown; to: unknown }> {
  const out: Record<string, { from: unknown; to: unknown }> = {};
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const path = prefix + key;
    if (IGNORED.has(path) || JSON.stringify(a[key]) === JSON.stringify(b[key])) continue;
    if (!prefix && isObject(a[key]) && isObject(b[key])) Object.assign(out, changedFields(a[key], b[key], `${path}.`));
    else out[path] = { from: a[key] ?? null, to: b[key] ?? null };
  }
  return out;
}

/** An item named briefly: its id and the fields that say what it is. */
function brief(item: Item): Record<string, unknown> {
  const out: Record<string, unknown> = { id: item.id };
  for (const k of ['kind', 'class', 'type', 'cases', 'share', 'share_of_from', 'holds', 'share_met', 'statement', 'path']) if (k in item) out[k] = item[k];
  return out;
}

/** What changed from one document to another: per kind the items added, removed and changed (by id), with counts. */
export function diffDocuments(a: GraphDocument, b: GraphDocument, limit: number) {
  const counts: Record<string, { added: number; removed: number; changed: number; before: number; after: number }> = {};
  const changes: Record<string, { added: unknown[]; removed: unknown[]; changed: unknown[] }> = {};
  let cut = false;
  for (const [kind, list] of Object.entries(DIFF_KINDS) as [DiffKind, (d: GraphDocument) => unknown[]][]) {
    const before = new Map((list(a) as Item[]).map((x) => [x.id, x]));
    const after = new Map((list(b) as Item[]).map((x) => [x.id, x]));
    const added = [...after.values()].filter((x) => !before.has(x.id));
    const removed = [...before.values()].filter((x) => !after.has(x.id));
    const changed: { id: string; fields: Record<string, { from: unknown; to: unknown }> }[] = [];
    for (const [id, x] of after) {
      const old = before.get(id);
      if (!old) continue;
      const fields = changedFields(old, x);
      if (Object.keys(fields).length) changed.push({ id, fields });
    }
    counts[kind] = { added: added.length, removed: removed.length, changed: changed.length, before: before.size, after: after.size };
    if (added.length > limit || removed.length > limit || changed.length > limit) cut = true;
    changes[kind] = { added: added.slice(0, limit).map(brief), removed: removed.slice(0, limit).map(brief), changed: changed.slice(0, limit) };
  }
  return {
    source: {
      cases: { from: a.source.cases, to: b.source.cases },
      events: { from: a.source.events, to: b.source.events },
      period_end: { from: a.source.period_end, to: b.source.period_end },
    },
    counts,
    changes,
    ...(cut ? { note: `each list shows at most ${limit} items (limit); the counts are complete` } : {}),
  };
}

/** A page of a list: the offset a cursor names. */
export function offsetOf(cursor: string | undefined): number {
  if (cursor === undefined || cursor === '') return 0;
  if (!/^\d{1,9}$/.test(cursor)) throw new ApiError('validation_failed', 'cursor: pass the nextCursor of a previous answer');
  return Number(cursor);
}

export const size = (value: unknown) => JSON.stringify(value).length;

/**
 * The most of `items` (at least one) whose answer, built by `make` around
 * them, fits in `maxChars`, with a note when some had to be left for the next page.
 */
export function fitItems<T, A extends Record<string, unknown>>(items: readonly T[], maxChars: number, make: (items: T[]) => A): A & { note?: string } {
  let answer = make(items.slice());
  if (items.length <= 1 || size(answer) <= maxChars) return answer;
  // Answers grow with their items, so a binary search finds the most that fit.
  let lo = 1;
  let hi = items.length - 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (size(make(items.slice(0, mid))) <= maxChars) lo = mid;
    else hi = mid - 1;
  }
  answer = make(items.slice(0, lo));
  return { ...answer, note: `cut to ${lo} of the ${items.length} items asked for to stay under ${maxChars} characters; continue with nextCursor` };
}

/**
 * Any answer kept under `maxChars`: the longest arrays inside it are halved until it
 * fits, each cut named in `truncated`; what still does not fit is answered as a preview.
 */
export function fitValue(value: Record<string, unknown>, maxChars: number): Record<string, unknown> {
  if (size(value) <= maxChars) return value;
  const copy = structuredClone(value);
  const cuts = new Map<string, { from: number; to: number }>();
  for (let round = 0; round < 200 && size(copy) > maxChars; round++) {
    let best: { path: string; arr: unknown[]; weight: number } | undefined;
    const walk = (v: unknown, path: string) => {
      if (Array.isArray(v)) {
        if (v.length > 1) {
          const weight = size(v);
          if (!best || weight > best.weight) best = { path, arr: v, weight };
        }
        v.forEach((x, i) => walk(x, `${path}[${i}]`));
      } else if (isObject(v)) for (const [k, x] of Object.entries(v)) walk(x, path ? `${path}.${k}` : k);
    };
    walk(copy, '');
    if (!best) break;
    const target = best;
    const keep = Math.max(1, Math.floor(target.arr.length / 2));
    const was = cuts.get(target.path)?.from ?? target.arr.length;
    target.arr.length = keep;
    cuts.set(target.path, { from: was, to: keep });
  }
  const truncated = [...cuts].map(([path, c]) => `${path || 'answer'}: ${c.to} of ${c.from} items`);
  const fitted = { ...copy, truncated, note: `the answer was over ${maxChars} characters: lists were cut (see truncated); ask for less (a section, a smaller limit)` };
  if (size(fitted) <= maxChars) return fitted;
  const text = JSON.stringify(value);
  return { truncated: ['answer'], note: `the answer is ${text.length} characters, over ${maxChars}; this is its beginning as text`, preview: text.slice(0, Math.max(0, maxChars - 400)) };
}

/**
 * What a tool asks of one or more documents, as data, so that it can be answered where the documents
 * are parsed: on a worker thread in `pcg serve` (a 2,000-activity document is 4 MB of JSON, ~40 ms
 * to parse), in process elsewhere. `diff` takes two documents, every other view one.
 */
export type GraphViewRequest =
  | { kind: 'summary' }
  /** The whole document when its text is at most maxChars (with the summary, for when the answer around it is not). */
  | { kind: 'full'; maxChars: number }
  | { kind: 'section'; section: Section; offset: number; limit: number }
  | { kind: 'decision'; decision: string }
  | { kind: 'diff'; limit: number }
  /** A variant's path by its id, or an outcome's end activity by its id or end activity (list_cases). */
  | { kind: 'variant'; id: string }
  | { kind: 'outcome'; id: string };

/** A parsed document and the length of its text. */
export interface ReadDocument {
  document: GraphDocument;
  chars: number;
}

/** The answer to one view request (`not_found` as an ApiError, as the views above throw it). */
export function viewOf(docs: readonly ReadDocument[], request: GraphViewRequest): Record<string, unknown> {
  const doc = docs[0]!.document;
  switch (request.kind) {
    case 'summary':
      return summarize(doc);
    case 'full':
      return docs[0]!.chars <= request.maxChars ? { chars: docs[0]!.chars, document: doc, summary: summarize(doc) } : { chars: docs[0]!.chars, summary: summarize(doc) };
    case 'section': {
      const items = sectionItems(doc, request.section);
      return { total: items.length, items: items.slice(request.offset, request.offset + request.limit) };
    }
    case 'decision':
      return explainDecision(doc, request.decision);
    case 'diff':
      return diffDocuments(doc, docs[1]!.document, request.limit);
    case 'variant': {
      const v = doc.variants.find((x) => x.id === request.id);
      if (!v) throw new ApiError('not_found', `no variant '${request.id}' in the newest document (variants under 1% of cases are left out: pass path instead)`);
      return { id: v.id, path: v.path.map(String) };
    }
    case 'outcome': {
      const outcome = doc.outcomes.find((o) => o.id === request.id);
      const end = outcome?.end_activity ?? (doc.outcomes.some((o) => o.end_activity === request.id) ? request.id : undefined);
      if (end === undefined) throw new ApiError('not_found', `no outcome '${request.id}'; outcomes: ${doc.outcomes.map((o) => o.id).join(', ') || 'none'}`);
      return { endActivity: end };
    }
  }
}

/**
 * What changed between two graph documents, as a value with a stable shape
 * (for agents) and as text (for people). Elements are matched by a key that
 * survives new data: nodes and edges by id, variants by path, sequence rules
 * and policies by id, outcomes by id (one end activity may end cases as a
 * success, other and open: one item each), decisions by where they
 * are. An element is changed when one of its compared fields differs; the
 * fields compared are listed per section in `compared` below (waits and other
 * sketch-read hours are not compared: they move with every batch).
 */
import type { GraphDocument } from '../document/types.js';
import { casesText, eventsText, pathText, pct, whenText } from './format.js';
import { oneLine } from './safe-text.js';
import { SECTION_KEYS, sectionRow, type DiffSectionKey } from './sections.js';

export type Value = string | number | boolean | string[];

export interface Change {
  before: Value;
  after: Value;
}

export interface Entry {
  /** The matching key (id, path text or activity). */
  key: string;
  /** A readable name for it. */
  label: string;
  /** The compared fields' values (of the one side for added and removed entries). */
  fields: Record<string, Value>;
}

export interface ChangedEntry {
  key: string;
  label: string;
  /** Only the fields that differ. */
  changes: Record<string, Change>;
}

export interface SectionDiff {
  added: Entry[];
  removed: Entry[];
  changed: ChangedEntry[];
  unchanged: number;
}

/** The sections compared, in the order of sections.ts: those whose row has `diff`. */
export const diffSections = SECTION_KEYS.filter((k) => sectionRow(k).diff) as DiffSectionKey[];
export type DiffSection = DiffSectionKey;

export interface DocumentDiff {
  schema: 'pcg.document-diff';
  version: 1;
  /** True when no section has an added, removed or changed element and the counts are equal. */
  same: boolean;
  before: { data_version: string; log_digest: string; cases: number; events: number; period_end: string };
  after: { data_version: string; log_digest: string; cases: number; events: number; period_end: string };
  /** Counts per section, in the order of `sections`. */
  summary: Record<DiffSection, { added: number; removed: number; changed: number; unchanged: number }>;
  sections: Record<DiffSection, SectionDiff>;
}

/** The fields each section compares (sections.ts). */
export const compared = Object.fromEntries(diffSections.map((k) => [k, [...sectionRow(k).diff!.fields]])) as Record<DiffSection, string[]>;

interface Keyed {
  key: string;
  label: string;
  fields: Record<string, Value>;
}

function entries(doc: GraphDocument, section: DiffSection): Keyed[] {
  const labels = new Map(doc.nodes.map((n) => [n.id, n.label]));
  // Stage ids are positions (stage-2 becomes stage-3 when a stage is cut before it): compare names.
  const stages = new Map(doc.stages.map((s) => [s.id, s.name]));
  switch (section) {
    case 'nodes':
      return doc.nodes.map((n) => ({
        key: n.id,
        label: n.label,
        fields: { kind: n.kind, label: n.label, stage: stages.get(n.stage) ?? n.stage, cases: n.cases, events: n.events, cases_repeating: n.cases_repeating },
      }));
    case 'edges':
      return doc.edges.map((e) => ({ key: e.id, label: `${labels.get(e.from) ?? e.from} → ${labels.get(e.to) ?? e.to}`, fields: { kind: e.kind, cases: e.cases } }));
    case 'variants':
      return doc.variants.map((v) => ({ key: pathText(v.path), label: pathText(v.path), fields: { class: v.class, cases: v.cases, share: v.share } }));
    case 'decisions':
      return doc.decisions.map((d) => ({
        key: d.at,
        label: `at ${d.at}`,
        fields: {
          branches: d.branches.map((b) => `${b.to}: ${b.cases}`),
          rules: d.rules.map((r) => `if ${whenText(r.when)} then ${r.then}`),
          explained: d.explained,
        },
      }));
    case 'sequence_rules':
      return doc.sequence_rules.map((r) => ({ key: r.id, label: r.statement, fields: { type: r.type, statement: r.statement, holds: r.holds } }));
    case 'policies':
      return doc.policies.map((p) => ({ key: p.id, label: p.statement, fields: { kind: p.kind, statement: p.statement, threshold_hours: p.threshold_hours, share_met: p.share_met } }));
    case 'outcomes':
      return doc.outcomes.map((o) => ({ key: o.id, label: o.end_activity, fields: { end_activity: o.end_activity, kind: o.kind, cases: o.cases, share: o.share } }));
  }
}

const equal = (a: Value | undefined, b: Value | undefined) => JSON.stringify(a) === JSON.stringify(b);

/**
 * A key met again in the same document (a hand-edited or older document) is
 * told apart by its rank, `key #2`: paired by one map, the second would hide
 * the first and a document diffed with itself would show a change.
 */
function ranked(items: Keyed[]): Keyed[] {
  const seen = new Map<string, number>();
  return items.map((e) => {
    const n = (seen.get(e.key) ?? 0) + 1;
    seen.set(e.key, n);
    return n === 1 ? e : { ...e, key: `${e.key} #${n}` };
  });
}

function diffSection(left: Keyed[], right: Keyed[]): SectionDiff {
  const a = ranked(left);
  const b = ranked(right);
  const before = new Map(a.map((e) => [e.key, e]));
  const after = new Map(b.map((e) => [e.key, e]));
  const out: SectionDiff = { added: [], removed: [], changed: [], unchanged: 0 };
  for (const e of b) if (!before.has(e.key)) out.added.push({ key: e.key, label: e.label, fields: e.fields });
  for (const e of a) {
    const other = after.get(e.key);
    if (!other) {
      out.removed.push({ key: e.key, label: e.label, fields: e.fields });
      continue;
    }
    const changes: Record<string, Change> = {};
    for (const f of new Set([...Object.keys(e.fields), ...Object.keys(other.fields)])) {
      if (!equal(e.fields[f], other.fields[f])) changes[f] = { before: e.fields[f] ?? '', after: other.fields[f] ?? '' };
    }
    // A changed statement names the element by its id: the statement itself is what changed.
    if (Object.keys(changes).length) out.changed.push({ key: e.key, label: 'statement' in changes ? e.key : other.label, changes });
    else out.unchanged++;
  }
  return out;
}

const sourceOf = (d: GraphDocument) => ({
  data_version: d.source.data_version,
  log_digest: d.source.log_digest,
  cases: d.source.cases,
  events: d.source.events,
  period_end: d.source.period_end,
});

export function diffDocuments(a: GraphDocument, b: GraphDocument): DocumentDiff {
  const sections = {} as Record<DiffSection, SectionDiff>;
  const summary = {} as DocumentDiff['summary'];
  let changed = a.source.cases !== b.source.cases || a.source.events !== b.source.events;
  for (const s of diffSections) {
    const d = diffSection(entries(a, s), entries(b, s));
    sections[s] = d;
    summary[s] = { added: d.added.length, removed: d.removed.length, changed: d.changed.length, unchanged: d.unchanged };
    if (d.added.length || d.removed.length || d.changed.length) changed = true;
  }
  return { schema: 'pcg.document-diff', version: 1, same: !changed, before: sourceOf(a), after: sourceOf(b), summary, sections };
}

/** A section's heading: its title, in lower case as the lines under it are. */
const titleOf = (section: DiffSection): string => sectionRow(section).title.toLowerCase();

/** Shares print as percentages, lists one item a line is too long: joined with `; `. */
function show(field: string, v: Value): string {
  if (Array.isArray(v)) return v.length ? v.join('; ') : '(none)';
  if (typeof v === 'number' && /share|holds/.test(field)) return pct(v);
  return String(v);
}

/** What a person reads for an added or removed element: its counts. */
function brief(section: DiffSection, e: Entry): string {
  const f = e.fields;
  const cases = () => casesText(Number(f.cases));
  switch (section) {
    case 'nodes':
      return `${e.label} (${cases()})`;
    case 'edges':
      return `${e.label} [${f.kind}] (${cases()})`;
    case 'variants':
      return `${e.label} [${f.class}] (${cases()}, ${show('share', f.share!)})`;
    case 'decisions':
      return `${e.label}: ${show('branches', f.branches!)}`;
    case 'sequence_rules':
      return `${e.label} (holds in ${show('holds', f.holds!)})`;
    case 'policies':
      return `${e.label} (met by ${show('share_met', f.share_met!)})`;
    case 'outcomes':
      return `${e.label} [${f.kind}] (${cases()}, ${show('share', f.share!)})`;
  }
}

/**
 * The diff for people: one line per element. Each line is written with
 * oneLine (safe-text.ts), so a name's line break or control character is
 * shown escaped and cannot start a line of its own or act on a terminal.
 */
export function renderDiffText(diff: DocumentDiff, names: { before?: string; after?: string } = {}): string {
  const side = (s: DocumentDiff['before'], name?: string) => `${name ? `${name}: ` : ''}data version ${s.data_version}, ${casesText(s.cases)}, ${eventsText(s.events)}`;
  const lines = [`before: ${side(diff.before, names.before)}`, `after:  ${side(diff.after, names.after)}`];
  const text = () => `${lines.map(oneLine).join('\n')}\n`;
  if (diff.same) {
    lines.push('', 'No differences.');
    return text();
  }
  const counts = (['cases', 'events'] as const).filter((k) => diff.before[k] !== diff.after[k]).map((k) => `${k} ${diff.before[k]} → ${diff.after[k]}`);
  if (counts.length) lines.push(`source: ${counts.join(', ')}`);
  for (const s of diffSections) {
    const d = diff.sections[s];
    const c = diff.summary[s];
    lines.push('', `${titleOf(s)}: ${c.added} added, ${c.removed} removed, ${c.changed} changed, ${c.unchanged} unchanged`);
    for (const e of d.added) lines.push(`  + ${brief(s, e)}`);
    for (const e of d.removed) lines.push(`  - ${brief(s, e)}`);
    for (const e of d.changed) {
      const parts = Object.entries(e.changes).map(([f, ch]) => `${f} ${show(f, ch.before)} → ${show(f, ch.after)}`);
      lines.push(`  ~ ${e.label}: ${parts.join(', ')}`);
    }
  }
  return text();
}

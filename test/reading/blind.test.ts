import { describe, expect, it } from 'vitest';
import { modelNames, simulate } from '../../connectors/simulator/index.js';
import { buildDocument, type GraphDocument } from '../../engine/document/index.js';
import type { WireEvent } from '../../engine/index.js';
import { freshStore } from '../engine/helpers.js';

/**
 * The reading must rest on the data, not on how it is named or written down (issue 31):
 * - name-blind: with every activity renamed to an opaque code, claims that came from names may go, but no claim
 *   may become stronger, and no verdict or noun may appear that the names did not give;
 * - order-blind: with the file order of events sharing a timestamp shuffled (day-level data), no claim above
 *   `weak` may change: what equal timestamps order is how the log was written.
 * Claims are compared by what they say, with the codes mapped back to the names.
 */

const RANK: Record<string, number> = { hypothesis: 1, weak: 2, moderate: 3, strong: 4, counted: 5 };

/** Every claim of a document as key -> rank (0: absent), labels read through `name`. */
function claims(doc: GraphDocument, name: (label: string) => string = (l) => l): Map<string, number> {
  const out = new Map<string, number>();
  const label = new Map(doc.nodes.map((n) => [n.id, n.kind === 'activity' ? name(n.label) : n.kind]));
  const put = (key: string, rank: number) => out.set(key, Math.max(rank, out.get(key) ?? 0));
  // By kind: which step a case ends with on its last day is the file's order on day-level data, the verdict its name gives is not.
  for (const o of doc.outcomes) if (o.kind === 'success' || o.kind === 'failure') put(`outcome ${o.kind}`, RANK.moderate!);
  for (const e of doc.edges) if (e.kind !== 'normal' && e.kind !== 'allowed') put(`edge ${label.get(e.from)} -> ${label.get(e.to)} ${e.kind}`, RANK[e.evidence.strength]!);
  for (const d of doc.decisions) {
    if (d.explained) put(`explained ${name(d.at)}`, RANK[d.evidence.strength]!);
    for (const r of d.rules) put(`rule ${name(d.at)} ${JSON.stringify(r.when)} => ${name(r.then)}`, RANK[r.evidence.strength]!);
  }
  for (const r of doc.sequence_rules) put(`sequence ${r.type} ${r.statement.split(/'([^']*)'/).map((s, i) => (i % 2 ? name(s) : s)).join("'")}`, RANK[r.evidence.strength]!);
  for (const p of doc.policies) put(`policy ${p.kind} ${p.statement.split(/'([^']*)'/).map((s, i) => (i % 2 ? name(s) : s)).join("'").replace(/[\d.]+%/g, '%')}`, RANK[p.evidence.strength]!);
  for (const e of doc.escalations) put(`escalation ${name(e.from)} -> ${name(e.to)}`, RANK[e.evidence.strength]!);
  if (!/^one case, identified by/.test(doc.process.case_represents)) put(`case is ${doc.process.case_represents.split(' (')[0]}`, RANK.hypothesis!);
  return out;
}

function documentOf(events: readonly WireEvent[]): GraphDocument {
  const store = freshStore();
  for (let i = 0; i < events.length; i += 4000) store.apply({ records: events.slice(i, i + 4000) });
  return buildDocument(store.snapshot());
}

/** Claims of `after` stronger than in `before`, or new (by key). */
function strengthened(before: Map<string, number>, after: Map<string, number>): string[] {
  return [...after].filter(([k, r]) => r > (before.get(k) ?? 0)).map(([k, r]) => `${k} (${r} > ${before.get(k) ?? 0})`);
}

describe.each(modelNames())('the reading of the simulated %s log', (model) => {
  const events = [...simulate({ model, cases: 800, seed: 5, openShare: 0 })];

  it('is name-blind: renamed to opaque codes, no claim gets stronger, and no verdict or noun comes from nowhere', () => {
    const names = [...new Set(events.map((e) => e.activity))].sort();
    const code = new Map(names.map((n, i) => [n, `T${String(i + 1).padStart(2, '0')}`]));
    const back = new Map([...code].map(([n, c]) => [c, n]));
    const renamed = events.map((e) => ({ ...e, activity: code.get(e.activity)! }));
    const named = claims(documentOf(events));
    const blind = documentOf(renamed);
    expect(strengthened(named, claims(blind, (c) => back.get(c) ?? c))).toEqual([]);
    // Codes name no verdict and no object.
    expect(blind.outcomes.filter((o) => o.kind === 'success' || o.kind === 'failure')).toEqual([]);
    expect(blind.process.case_represents).toMatch(/^one case, identified by/);
  });

  it('is order-blind: on day-level times, shuffling the file order of same-day events changes no claim above weak', () => {
    const day = 86_400_000;
    const daily = events.map((e) => ({ ...e, timestamp: new Date(Math.floor(Date.parse(String(e.timestamp)) / day) * day).toISOString() }));
    // Event ids decide the order of equal timestamps (file order): reversed within each case and day.
    const shuffled = daily.map((e) => ({ ...e, eventId: `${e.caseId}|${e.timestamp}|${[...String(e.eventId)].reverse().join('')}` }));
    const asWritten = daily.map((e) => ({ ...e, eventId: `${e.caseId}|${e.timestamp}|${String(e.eventId)}` }));
    const above = (m: Map<string, number>) => new Map([...m].filter(([, r]) => r > RANK.weak!));
    const a = above(claims(documentOf(asWritten)));
    const b = above(claims(documentOf(shuffled)));
    expect([...b.keys()].filter((k) => !a.has(k))).toEqual([]);
    expect([...a.keys()].filter((k) => !b.has(k))).toEqual([]);
  });
});

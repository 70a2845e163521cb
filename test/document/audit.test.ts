import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulate } from '../../connectors/simulator/index.js';
import { buildDocument } from '../../engine/document/index.js';
import type { GraphDocument } from '../../engine/document/types.js';
import { ProjectStore, type Event, type WireEvent } from '../../engine/index.js';
import { auditDocument, report, SECTIONS, sectionOf, STRICT_SECTIONS, type Audit } from './audit.js';

/**
 * The self-consistency audit (audit.ts) on small logs written here and on
 * simulated logs of every built-in model: each section is its own test, strict
 * (no difference allowed) when STRICT_SECTIONS in audit.ts lists it, else its
 * differences are printed and the test passes. The hand logs are built to
 * give the reading something to say: decisions with an attribute rule, a
 * rework loop, skipped, out-of-order and rare steps, separation of duties,
 * open cases; the odd one has quotes, accents and digits in its names, ties
 * in time and values the counters bin or leave out.
 */
const HOUR = 3_600_000;
const T0 = Date.UTC(2025, 0, 6);

/** A small deterministic generator (LCG), so the hand logs need no fixtures. */
function rng(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
}

/** A compensation process in the spirit of the textbook running example, 90 cases. */
function compensationLog(): WireEvent[] {
  const out: WireEvent[] = [];
  const r = rng(7);
  for (let c = 0; c < 90; c++) {
    const caseId = `case-${String(c).padStart(3, '0')}`;
    let t = T0 + c * 5 * HOUR;
    const ev = (activity: string, resource: string, attributes?: Record<string, string | number | boolean>) => {
      out.push({ caseId, activity, timestamp: t, eventId: `${caseId}-${out.length}`, resource, ...(attributes ? { attributes } : {}) });
      t += Math.round((0.5 + r() * 40) * HOUR);
    };
    const amount = Math.round(100 + r() * 4900);
    ev('register request', 'ann', { amount, channel: c % 3 ? 'web' : 'mail', vip: c % 7 === 0 });
    if (c % 11 === 5) ev('examine casually', 'ellen');
    if (c === 40) continue; // stopped right after registering
    ev('check ticket', c % 2 ? 'pete' : 'sue');
    for (let round = 0; round < 3; round++) {
      if (c % 9 !== 4) ev(amount >= 2500 ? 'examine thoroughly' : 'examine casually', r() < 0.5 ? 'ellen' : 'mike');
      if (c % 23 === 3) ev('call customer', 'ann', { reached: r() < 0.5 });
      ev('decide', r() < 0.5 ? 'sara' : 'sean', { code: String(Math.round(r() * 3000)) });
      if (round < 2 && r() < 0.25) {
        ev('reinitiate request', 'sara');
        ev('check ticket', c % 2 ? 'pete' : 'sue');
        continue;
      }
      if (c % 17 === 16) break; // open: decided, nothing after
      ev(amount >= 2500 && r() < 0.8 ? 'reject request' : 'pay compensation', 'mike');
      break;
    }
  }
  return out;
}

/** Names with quotes, accents, digits and brackets; ties in time; booleans, negatives, numeric text, long text. */
function oddLog(): WireEvent[] {
  const out: WireEvent[] = [];
  const r = rng(3);
  const names = ["it's open", 'Prüfung', 'a (b, c)', '42', "x'y", 'Prüfung ok'];
  for (let c = 0; c < 40; c++) {
    const caseId = `o${c}`;
    let t = T0 + c * HOUR;
    const n = c === 0 ? 1 : 2 + Math.floor(r() * 5);
    for (let k = 0; k < n; k++) {
      const activity = k === 0 ? names[0]! : names[1 + Math.floor(r() * (names.length - 1))]!;
      const attributes = { level: c % 4 === 0 ? -Math.round(r() * 50) : Math.round(r() * 50), flag: r() < 0.5, ref: String(1000 + c), note: 'x'.repeat(c % 2 ? 10 : 50) };
      out.push({ caseId, activity, timestamp: t, eventId: `${caseId}-${String(k).padStart(2, '0')}`, ...(k % 2 ? {} : { resource: `r${c % 3}` }), attributes });
      // Every other step at the same time: ties are ordered by event id.
      if (k % 2) t += Math.round(r() * 10 * HOUR);
    }
  }
  return out;
}

const oneCaseLog = (): WireEvent[] =>
  ['Create Order', 'Check Order', 'Close Order'].map((activity, k) => ({ caseId: 'only', activity, timestamp: T0 + k * HOUR, eventId: `e${k}` }));

const LOGS: [string, () => WireEvent[]][] = [
  ['hand: compensation', compensationLog],
  ['hand: odd names and ties', oddLog],
  ['hand: one case', oneCaseLog],
  ['hand: empty', () => []],
  ...['claims', 'helpdesk', 'order-to-cash'].flatMap((model): [string, () => WireEvent[]][] => [
    [`simulated ${model}, 300 closed cases`, () => [...simulate({ model, cases: 300, seed: 5, openShare: 0 })]],
    [`simulated ${model}, 400 cases, open, late and duplicated events`, () => [...simulate({ model, cases: 400, seed: 9, lateShare: 0.05, duplicateShare: 0.03 })]],
  ]),
];

const work = mkdtempSync(join(tmpdir(), 'pcg-audit-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The log's document and its stored events (read before the store closes). */
function documentOf(name: string, records: WireEvent[]): { doc: GraphDocument; traces: Event[][] } {
  const store = ProjectStore.open(join(work, `${name.replace(/[^a-z0-9]+/gi, '_')}.sqlite`));
  try {
    // Batches of 500: late events and duplicates then cross batch boundaries, as in a stream.
    for (let i = 0; i < records.length; i += 500) store.apply({ records: records.slice(i, i + 500) });
    return { doc: buildDocument(store.snapshot()), traces: [...store.traces()] };
  } finally {
    store.close();
  }
}

function auditOf(name: string, records: WireEvent[]): Audit {
  const { doc, traces } = documentOf(name, records);
  return auditDocument(doc, traces);
}

describe.each(LOGS)('audit of the %s log', (name, make) => {
  let audit: Audit;
  beforeAll(() => {
    audit = auditOf(name, make());
  });

  for (const section of SECTIONS) {
    const strict = STRICT_SECTIONS.includes(section);
    it(`${section}: ${strict ? 'every figure matches the events' : 'not strict yet, differences printed'}`, () => {
      const lines = audit.filter((l) => sectionOf(l) === section);
      if (strict) expect(lines).toEqual([]);
      else if (lines.length) console.log(report(name, section, lines));
    });
  }

  it('every line belongs to an audited section; what was skipped is printed', () => {
    expect(audit.filter((l) => !(SECTIONS as readonly string[]).includes(sectionOf(l)))).toEqual([]);
    if (audit.skipped.length) console.log(report(name, 'skipped', audit.skipped));
  });
});

/** The audit audited: one figure changed per section must give new lines, all in that section (a sum may fail beside the figure). */
describe('the audit itself', () => {
  const changes: Record<(typeof SECTIONS)[number], (d: GraphDocument) => void> = {
    source: (d) => (d.source.events += 1),
    nodes: (d) => (d.nodes.find((n) => n.kind === 'activity')!.cases_repeating += 1),
    edges: (d) => (d.edges[0]!.cases += 1),
    waits: (d) => (d.edges.find((e) => e.from !== 'start' && e.to !== 'end')!.slow_wait_hours += 0.5),
    variants: (d) => (d.variants[0]!.cases += 1),
    outcomes: (d) => (d.outcomes[0]!.cases += 1),
    success_criteria: (d) => (d.success_criteria[0]!.share_met /= 2),
    policies: (d) => (d.policies[d.policies.length - 1]!.share_met /= 2),
    exceptions: (d) => (d.exceptions[0]!.cases += 1),
    decisions: (d) => (d.decisions[0]!.branches[0]!.cases += 1),
    roles: (d) => d.roles.push({ id: 'role-ghost', name: 'x (ghost alone, doing only this step)', attribute: 'org:resource', activities: [], cases: 0 }),
  };
  let doc: GraphDocument;
  let traces: Event[][];
  let before: Set<string>;
  beforeAll(() => {
    ({ doc, traces } = documentOf('self-check', compensationLog()));
    before = new Set(auditDocument(doc, traces));
  });
  it.each(SECTIONS)('a changed figure in %s is reported', (section) => {
    const changed = structuredClone(doc);
    changes[section](changed);
    expect(new Set(auditDocument(changed, traces).filter((l) => !before.has(l)).map(sectionOf))).toEqual(new Set([section]));
  });
});

/**
 * The definitions checked on items written by hand over four cases whose
 * figures are counted here by eye, so every exception and policy kind and a
 * decision rule are audited whether or not the reading emits one today.
 *   c1: A(x=20, ann) B(bob) C      c2: B(x=5) A(ann) C(ann)
 *   c3: A(x=15) C                  c4: A(x=50, ann) B(ann) B D
 */
describe('the audit on hand-made items', () => {
  const cases: [string, number, string[]][] = [['c1', 20, ['A', 'B', 'C']], ['c2', 5, ['B', 'A', 'C']], ['c3', 15, ['A', 'C']], ['c4', 50, ['A', 'B', 'B', 'D']]];
  const who: Record<string, string[]> = { c1: ['ann', 'bob'], c2: ['', 'ann', 'ann'], c4: ['ann', 'ann'] };
  // A -> B waits: 1 h in c1, 3 h in c4 (each step is 1 h, c4's second step 3 h).
  const records: WireEvent[] = cases.flatMap(([caseId, x, path]) =>
    path.map((activity, k) => {
      const resource = who[caseId]?.[k];
      // A recorded verdict on the last event: true in c1 and c3, false in c2, none in c4.
      const attributes = { ...(k === 0 ? { x } : {}), ...(k === path.length - 1 && caseId !== 'c4' ? { ok: caseId !== 'c2' } : {}) };
      return { caseId, activity, timestamp: T0 + (caseId === 'c4' && k > 0 ? k + 2 : k) * HOUR, eventId: `${caseId}-${k}`, ...(resource ? { resource } : {}), ...(Object.keys(attributes).length ? { attributes } : {}) };
    }),
  );
  const ev = (cases: number, of: number) => ({ cases, of_cases: of, share: of ? cases / of : 0, strength: 'counted' as const, method: 'by hand' });
  const exception = (id: string, name: string, trigger: string, cases: number, of: number) => ({ id, name, trigger, detected_by: '', handling: [], cases, evidence: ev(cases, of) });
  const policy = (id: string, kind: 'timing' | 'sequence' | 'separation', statement: string, hours: number, share: number, of: number) => ({ id, kind, statement, threshold_hours: hours, share_met: share, evidence: ev(Math.round(share * of), of) });
  const criterion = (id: string, test: string, share: number, of: number) => ({ id, statement: '', test, share_met: share, evidence: ev(Math.round(share * of), of) });
  const handMade = (d: GraphDocument): GraphDocument => ({
    ...d,
    success_criteria: [
      criterion('success-step', "an event of ['D'] in the case", 1 / 4, 4),
      criterion('recorded-ok', "last value of 'ok' in the case is true", 2 / 3, 3),
      criterion('no-failure-step', "no event of ['B'] in the case", 1 / 4, 4),
    ],
    exceptions: [
      exception('out-of-order-b-a', "'B' before 'A'", '', 1, 3),
      exception('repeated-b', "'B' repeated", "'B' directly again (1 of the 1 cases that repeat it)", 1, 3),
      { ...exception('skipped-b', "'B' skipped", "after 'A' the case goes to 'C' instead (1 of the 1 cases)", 1, 4), detected_by: "a case that did 'A' and went on to a later step of the backbone ('C') without ever doing 'B'" },
      exception('rare-d', "rare step 'D'", "after 'B' (1 of the 1 cases)", 1, 4),
      exception('failed-ending-d', "ends with 'D'", "after 'B' (1 of the 1 cases)", 1, 4),
    ],
    policies: [
      policy('timing-a-b', 'timing', "'B' follows 'A' within 2 hours.", 2, 0.5, 2),
      policy('sequence-a-b', 'sequence', "'A' comes before 'B'.", 0, 2 / 3, 3),
      // c1: ann and bob; c2: B has no resource; c4: ann did both.
      policy('separation-a-b', 'separation', "'A' and 'B' are done by different people in a case.", 0, 2 / 3, 3),
    ],
    decisions: [
      {
        id: 'decision-a',
        at: 'A',
        branches: [{ to: 'B', cases: 2, share: 0.5 }, { to: 'C', cases: 2, share: 0.5 }],
        baseline_share: 0.5,
        // x >= 10 at A's first visit: c1 (B), c3 (C), c4 (B).
        rules: [{ id: 'rule-a-1', when: [{ attribute: 'x', op: '>=', value: 10 }], then: 'B', cases: 3, holds: 2 / 3, evidence: ev(2, 3) }],
        explained: false,
        evidence: ev(4, 4),
      },
    ],
  });
  let doc: GraphDocument;
  let traces: Event[][];
  beforeAll(() => {
    ({ doc, traces } = documentOf('hand-made items', records));
    doc = handMade(doc);
  });

  it('match the counts by eye', () => {
    expect([...auditDocument(doc, traces)], JSON.stringify(auditDocument(doc, traces).skipped)).toEqual([]);
  });

  it('each figure one off is reported', () => {
    const paths = [
      ...doc.exceptions.flatMap((_, i) => [`/exceptions/${i}/cases`]),
      ...doc.policies.map((_, i) => `/policies/${i}/share_met`),
      ...doc.success_criteria.map((_, i) => `/success_criteria/${i}/share_met`),
      '/decisions/0/branches/1/cases',
      '/decisions/0/rules/0/cases',
    ];
    for (const path of paths) {
      const changed = structuredClone(doc) as unknown as Record<string, unknown>;
      const keys = path.slice(1).split('/');
      const parent = keys.slice(0, -1).reduce((o, k) => (o as Record<string, unknown>)[k], changed as unknown) as Record<string, number>;
      parent[keys[keys.length - 1]!]! += path.endsWith('share_met') ? 0.1 : 1;
      expect(auditDocument(changed as unknown as GraphDocument, traces).filter((l) => l.startsWith(`${path}:`)), path).toHaveLength(1);
    }
  });

  it('a criterion the audit has no definition for is a finding, not a skip', () => {
    const changed = structuredClone(doc);
    changed.success_criteria.push(criterion('within-service-level', 'duration <= 4 h', 1, 4));
    expect([...auditDocument(changed, traces)]).toEqual(['/success_criteria/3: criterion within-service-level has no audit definition']);
  });

  it("recounts a trigger's cases from the step it names", () => {
    const changed = structuredClone(doc);
    changed.exceptions[1]!.trigger = "after 'A' (1 of the 1 cases that repeat it)";
    changed.exceptions[2]!.trigger = "after 'A' the case goes to 'D' instead (1 of the 1 cases)";
    changed.exceptions[3]!.trigger = 'at the start of the case (1 of the 1 cases)';
    changed.exceptions[4]!.trigger = "after 'A' (1 of the 1 cases)";
    expect([...auditDocument(changed, traces)]).toEqual([
      '/exceptions/1/trigger: document "1 of 1", recomputed "0 of 1"',
      '/exceptions/2/trigger: document "1 of 1", recomputed "0 of 1"',
      '/exceptions/3/trigger: document "1 of 1", recomputed "0 of 1"',
      '/exceptions/4/trigger: document "1 of 1", recomputed "0 of 1"',
    ]);
  });
});

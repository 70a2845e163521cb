import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importLog } from '../../connectors/files/index.js';
import { buildDocument, validateDocument } from '../../engine/document/index.js';
import { cmp, ProjectStore } from '../../engine/index.js';
import { isPlaceholder } from '../../engine/reading/words.js';
import { splitRoleKey } from '../../engine/tally.js';
import { realLogs, runPm4py } from '../tools/pm4py.js';

// Made only when the suite runs: a skipped file runs no afterAll.
const work = realLogs ? mkdtempSync(join(tmpdir(), 'pcg-real-roles-')) : '';
afterAll(() => rmSync(work, { recursive: true, force: true }));

// Events and distinct cases per (value, activity) of one attribute in pm4py's dataframe, values as the engine counts them
// (text, trimmed, empty and over-100-character values left out); and which role-like event attributes the log has.
const PM4PY_ROLES = `
import sys, json, re, pm4py
path, attribute, label = sys.argv[1], sys.argv[2], sys.argv[3] == 'label'
df = pm4py.read_xes(path)
# Read as the import reads a log whose lifecycle:transition holds a sub-status: the activity is name+sub-status.
if label:
    df['concept:name'] = df['concept:name'].astype(str) + '+' + df['lifecycle:transition'].astype(str)
present = sorted(c for c in df.columns if re.fullmatch(r'(org:)?(role|group|team)', c, re.I))
d = df[['case:concept:name', 'concept:name', attribute]].dropna(subset=[attribute]).copy()
d['v'] = d[attribute].astype(str).str.strip()
d = d[(d['v'].str.len() > 0) & (d['v'].str.len() <= 100)]
g = d.groupby(['v', 'concept:name'])
events = g.size()
cases = g['case:concept:name'].nunique()
print(json.dumps({'present': present, 'events': len(df), 'counts': [[v, a, int(events[(v, a)]), int(cases[(v, a)])] for (v, a) in events.index]}))
`;

describe.skipIf(!realLogs)('roles of the real logs against pm4py', () => {
  it.each([
    // BPIC 2013 has org:role on 4582 of its 6660 events and org:group on all: org:group covers more (issue 31: the
    // third line's groups G3 and G4 have no org:role). Its activities are status+sub-status (lifecycle-choice.ts).
    // Receipt's org:group has 'EMPTY' on 1,936 events: a placeholder, counted but naming no role.
    ['pm4py/08_receipt.xes.gz', 'org:group', ['org:group'], 9, false],
    ['pm4py/06_bpic2013_closed.xes.gz', 'org:group', ['org:group', 'org:role'], 15, true],
  ] as [string, string, string[], number, boolean][])('%s: one role per %s value, counted as pm4py counts it', async (file, attribute, present, valueCount, label) => {
    const path = join(realLogs!, file);
    const store = ProjectStore.open(join(work, `${file.replace(/[^a-z0-9]+/gi, '_')}.sqlite`));
    let doc;
    let counted: [string, string, number, number][];
    try {
      await importLog(store, path);
      const snapshot = store.snapshot();
      doc = buildDocument(snapshot);
      counted = [...snapshot.tally.roleValues]
        .map(([k, p]) => ({ ...splitRoleKey(k), ...p }))
        .filter((r) => r.attribute === attribute)
        .map((r) => [r.value, r.activity, r.events, r.cases] as [string, string, number, number]);
    } finally {
      store.close();
    }
    expect(validateDocument(doc).ok).toBe(true);
    const py = runPm4py<{ present: string[]; events: number; counts: [string, string, number, number][] }>(PM4PY_ROLES, [path, attribute, label ? 'label' : 'name']);
    expect(py.present).toEqual(present);
    expect(doc.source.events).toBe(py.events);

    // The counted state: events and cases per value and activity, exactly.
    const byKey = (rows: [string, string, number, number][]) => [...rows].sort((a, b) => cmp(a[0], b[0]) || cmp(a[1], b[1]));
    expect(byKey(counted)).toEqual(byKey(py.counts));

    // The document: one role per value that is not a placeholder, from that attribute, activities most events first
    // (ties by name), cases the largest per activity.
    const named = py.counts.filter((r) => !isPlaceholder(r[0]));
    const values = new Map<string, [string, number, number][]>();
    for (const [v, a, n, c] of named) values.set(v, [...(values.get(v) ?? []), [a, n, c]]);
    const total = (v: string) => values.get(v)!.reduce((s, r) => s + r[1], 0);
    const expected = [...values.keys()]
      .sort((a, b) => total(b) - total(a) || cmp(a, b))
      .map((v) => ({
        name: v,
        attribute,
        activities: [...values.get(v)!].sort((a, b) => b[1] - a[1] || cmp(a[0], b[0])).map((r) => r[0]),
        cases: Math.max(...values.get(v)!.map((r) => r[2])),
      }));
    expect(expected).toHaveLength(valueCount);
    expect(doc.roles.map(({ id: _, ...r }) => r)).toEqual(expected);
    expect(new Set(doc.roles.map((r) => r.id)).size).toBe(doc.roles.length);

    // nodes[].roles: the roles whose value occurs at the activity.
    const idOf = new Map(doc.roles.map((r) => [r.name, r.id]));
    for (const n of doc.nodes.filter((x) => x.kind === 'activity')) {
      const at = named.filter((r) => r[1] === n.label);
      expect(new Set(n.roles)).toEqual(new Set(at.map((r) => idOf.get(r[0]))));
    }
    const text = doc.assumptions.find((a) => typeof a === 'string' && a.startsWith('Roles come')) as string;
    expect(text).toContain(`Roles come from the ${attribute} attribute`);
    const carrying = named.reduce((s, r) => s + r[2], 0);
    expect(text).toContain(`${carrying} of ${py.events} events (${Math.round((1000 * carrying) / py.events) / 10}%) carry one`);
    if (file.includes('receipt')) expect(doc.roles.map((r) => r.name)).not.toContain('EMPTY');
  }, 600_000);
});

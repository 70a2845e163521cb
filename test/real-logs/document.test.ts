import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importLog } from '../../connectors/files/index.js';
import { buildDocument, validateDocument, type GraphDocument } from '../../engine/document/index.js';
import { ProjectStore, splitKey, type ProjectSnapshot } from '../../engine/index.js';
import { leaf, node, printTree, tau } from '../../engine/mining/index.js';
import { realLogs, runPm4py } from '../tools/pm4py.js';
import { classicLogs, optionsFor, storeName } from './manifest.js';

// Made only when the suite runs: a skipped file runs no afterAll.
const work = realLogs ? mkdtempSync(join(tmpdir(), 'pcg-real-doc-')) : '';
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function documentOf(file: string): Promise<{ doc: GraphDocument; snapshot: ProjectSnapshot }> {
  const path = join(work, storeName(file));
  const store = ProjectStore.open(path);
  try {
    await importLog(store, join(realLogs!, file), optionsFor(file));
    const snapshot = store.snapshot();
    return { doc: buildDocument(snapshot), snapshot };
  } finally {
    store.close();
    // The state of 45 logs would run to gigabytes: freed log by log.
    for (const f of [path, `${path}-wal`, `${path}-shm`]) rmSync(f, { force: true });
  }
}

// pm4py reads the log, parses our tree, replays every trace (token-based; alignments when asked) and discovers the DFG.
// The import pairs a start with the transition that closes it (connectors/files/lifecycle.ts); the same rule is written
// here again in Python over pm4py's reading, so both sides count executions.
const PM4PY_CHECK = `
import sys, json, pm4py
import pandas as pd
from pm4py.objects.process_tree.utils.generic import parse
OPENS = {'start'}
MARKS = {'schedule', 'assign', 'reassign', 'suspend', 'resume'}
CLOSES = {'complete', 'ate_abort', 'pi_abort', 'withdraw', 'autoskip', 'manualskip', 'unknown'}
def executions(df):
    if 'lifecycle:transition' not in df.columns:
        return df
    df = df.reset_index(drop=True)
    df['_i'] = range(len(df))
    keep = []
    for _, g in df.sort_values(['case:concept:name', 'time:timestamp', '_i'], kind='stable').groupby('case:concept:name', sort=False):
        tr = [None if pd.isna(v) else str(v).strip().lower() for v in g['lifecycle:transition']]
        idx = list(g['_i'])
        if not any(t in OPENS for t in tr) or any(t is not None and t not in OPENS | MARKS | CLOSES for t in tr):
            keep += idx
            continue
        opened, k = {}, [True] * len(idx)
        for j, (t, a) in enumerate(zip(tr, g['concept:name'])):
            if t in MARKS:
                k[j] = False
            elif t in OPENS:
                opened.setdefault(a, []).append(j)
            elif t in CLOSES and opened.get(a):
                k[opened[a].pop(0)] = False
        keep += [i for i, kk in zip(idx, k) if kk]
    return df[df['_i'].isin(set(keep))].drop(columns=['_i'])
path, tree_file, align = sys.argv[1], sys.argv[2], sys.argv[3] == '1'
log = executions(pm4py.read_xes(path)) if '.xes' in path else None
tree = parse(open(tree_file, encoding='utf8').read())
net, im, fm = pm4py.convert_to_petri_net(tree)
tbr = pm4py.conformance_diagnostics_token_based_replay(log, net, im, fm)
out = {'traces': len(tbr), 'tbr_fit': sum(1 for r in tbr if r['trace_is_fit'])}
if align:
    al = pm4py.conformance_diagnostics_alignments(log, net, im, fm)
    out['aligned_fit'] = sum(1 for a in al if a['fitness'] == 1.0)
    out['precision'] = pm4py.precision_token_based_replay(log, net, im, fm)
dfg, start, end = pm4py.discover_dfg(log)
out['dfg'] = [[a, b, n] for (a, b), n in dfg.items()]
out['start'] = start
out['end'] = end
out['tree'] = str(tree)
print(json.dumps(out))
`;

describe.skipIf(!realLogs)('graph documents of the real logs', () => {
  it('pm4py parses our tree text back, labels with quotes, parentheses and commas included', () => {
    const tree = node('sequence', [leaf("it's"), node('xor', [leaf('a (b, c)'), tau()]), node('parallel', [leaf('x, y'), leaf(')(')]), node('loop', [leaf('tau-like'), tau()])]);
    const text = printTree(tree);
    const file = join(work, 'tricky.txt');
    writeFileSync(file, text);
    const back = runPm4py<string>(
      `import sys, json\nfrom pm4py.objects.process_tree.utils.generic import parse\nprint(json.dumps(str(parse(open(sys.argv[1], encoding='utf8').read()))))`,
      [file],
    );
    expect(back).toBe(text);
  }, 600_000);

  it.each(classicLogs().map((r) => r.file))('%s yields a valid document', async (file) => {
    const { doc } = await documentOf(file);
    expect(validateDocument(doc)).toEqual({ ok: true, problems: [] });
    expect(doc.source.cases).toBeGreaterThan(0);
    expect(doc.edges.filter((e) => e.from === 'start').reduce((s, e) => s + e.cases, 0)).toBe(doc.source.cases);
    expect(doc.model.cases_it_accepts).toBeGreaterThan(0);
  }, 600_000);

  it.each([
    ['pm4py/running-example.xes', true],
    ['pm4py/08_receipt.xes.gz', true],
    ['pm4py/bpic2012.xes.gz', false],
  ] as [string, boolean][])('%s: pm4py parses our tree, finds as many fitting traces, and the same DFG', async (file, align) => {
    const { doc, snapshot } = await documentOf(file);
    const treeFile = join(work, 'tree.txt');
    writeFileSync(treeFile, doc.model.process_tree);
    const py = runPm4py<{ traces: number; tbr_fit: number; aligned_fit?: number; precision?: number; dfg: [string, string, number][]; start: Record<string, number>; end: Record<string, number>; tree: string }>(
      PM4PY_CHECK,
      [join(realLogs!, file), treeFile, align ? '1' : '0'],
      1_200_000,
    );
    expect(py.traces).toBe(doc.source.cases);
    const accepted = Math.round(doc.model.cases_it_accepts * doc.source.cases);
    if (py.aligned_fit !== undefined) expect(py.aligned_fit).toBe(accepted);
    if (py.precision !== undefined) {
      // Our escaping-edges precision (assumptions) against pm4py's token-based ETC on the same tree.
      const model = doc.assumptions.find((a) => typeof a === 'object' && !Array.isArray(a) && 'precision' in a) as { precision: number };
      expect(model.precision).toBeCloseTo(py.precision, 3);
    }
    expect(py.tbr_fit).toBe(accepted);

    const ours: Record<string, number> = {};
    const starts: Record<string, number> = {};
    const ends: Record<string, number> = {};
    for (const [key, e] of snapshot.tally.edges) {
      const [from, to] = splitKey(key);
      if (from === '') starts[to] = e.events;
      else if (to === '') ends[from] = e.events;
      else ours[`${from} -> ${to}`] = e.events;
    }
    expect(ours).toEqual(Object.fromEntries(py.dfg.map(([a, b, n]) => [`${a} -> ${b}`, n])));
    expect(starts).toEqual(py.start);
    expect(ends).toEqual(py.end);
  }, 1_800_000);
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importLog } from '../../connectors/files/index.js';
import { ProjectStore } from '../../engine/index.js';
import { discoverModel, inductiveMiner, MinerMemo, NOISE_THRESHOLDS, printTree, variantLog, type ProcessTree } from '../../engine/mining/index.js';
import { expectSoundTree, pm4pyParseFailures } from '../mining/helpers.js';
import { realLogs } from '../tools/pm4py.js';
import { classicLogs, optionsFor, storeName } from './manifest.js';

/**
 * The process tree of every classic (non-OCEL) shared log, at every noise
 * threshold the miner may try and as the graph document prints it, is sound
 * and parses in pm4py. Empty operators (`*( tau, X(  ) )`) used to appear on
 * BPIC 2015, BPIC 2019, helpdesk, production and prepaid travel costs, mostly
 * at thresholds the document did not choose, so all four are checked. About
 * 25 s on an idle 2-core machine, nearly all of it importing the logs (BPIC
 * 2012 and BPIC 2019 5 s each), and a minute when other test runs share it.
 */
const THRESHOLDS = [0, 0.1, 0.2, 0.3];

interface Mined {
  /** The tree at each threshold. */
  trees: { noise: number; tree: ProcessTree }[];
  /** The graph document's model: its text and its share of cases accepted. */
  printed: string;
  accepts: number;
}

describe.skipIf(!realLogs)('process trees of the real logs', () => {
  const files = classicLogs().map((r) => r.file);
  // Made only when the suite runs: a skipped file runs no afterAll.
  const work = realLogs ? mkdtempSync(join(tmpdir(), 'pcg-real-trees-')) : '';
  const mined = new Map<string, Mined>();
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  beforeAll(async () => {
    for (const file of files) {
      const path = join(work, storeName(file));
      const store = ProjectStore.open(path);
      try {
        await importLog(store, join(realLogs!, file), optionsFor(file));
        const { variants } = store.snapshot().tally;
        const prepared = variantLog(variants);
        // The document's model is this one (buildDocument prints its text); the rest of the document is left out for time.
        const model = discoverModel(variants, NOISE_THRESHOLDS, prepared);
        const memo = new MinerMemo();
        const trees = THRESHOLDS.map((noise) => ({ noise, tree: inductiveMiner(prepared.log, prepared.labels, noise, memo) }));
        mined.set(file, { trees, printed: model.text, accepts: model.acceptedCases / model.cases });
      } finally {
        store.close();
        for (const f of [path, `${path}-wal`, `${path}-shm`]) rmSync(f, { force: true });
      }
    }
  }, 1_800_000);

  it('covers every classic log of the manifest', () => {
    expect(files.length).toBeGreaterThanOrEqual(30);
    expect([...mined.keys()]).toEqual(files);
  });

  it.each(files)('%s: every threshold gives a sound tree, and the document prints one of them', (file) => {
    const m = mined.get(file)!;
    for (const { tree } of m.trees) expectSoundTree(tree);
    expect(m.trees.map((t) => printTree(t.tree))).toContain(m.printed);
    expect(m.accepts).toBeGreaterThan(0);
  });

  it('pm4py parses every printed tree (one python call) and prints each back unchanged', () => {
    const texts = new Set<string>();
    for (const m of mined.values()) {
      texts.add(m.printed);
      for (const { tree } of m.trees) texts.add(printTree(tree));
    }
    expect(pm4pyParseFailures([...texts], work)).toEqual([]);
  }, 600_000);
});

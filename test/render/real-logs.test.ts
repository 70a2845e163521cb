/**
 * The renderers over the shared real logs (PCG_REAL_LOGS=/work/shared/logs;
 * skipped without it, as the rest of the real-log suite): every document is
 * the same as itself to `pcg diff`, its simplified maps keep every kept node
 * connected from start to end at any slider position, and its report prints
 * the tree indented as the same tree.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importLog } from '../../connectors/files/index.js';
import { buildDocument } from '../../engine/document/index.js';
import type { GraphDocument } from '../../engine/document/types.js';
import { parseTree } from '../../engine/mining/tree.js';
import { diffDocuments, diffSections, renderMarkdown } from '../../engine/render/index.js';
import { defaultSimplification, simplify } from '../../engine/render/simplify.js';
import { indentedTree } from '../../engine/render/tree-text.js';
import { MemoryProject } from '../../engine/store/memory-project.js';
import { classicLogs, optionsFor } from '../real-logs/manifest.js';
import { realLogs } from '../tools/pm4py.js';

/** Logs up to this many events: the checks are about every shape of log, not about size. */
const MAX_EVENTS = 60_000;

async function documentOf(file: string): Promise<GraphDocument> {
  const project = new MemoryProject();
  await importLog(project, join(realLogs!, file), optionsFor(file));
  return buildDocument(project.snapshot()) as GraphDocument;
}

describe.skipIf(!realLogs)('renderers over the shared real logs', () => {
  const logs = classicLogs(MAX_EVENTS);

  it('finds every document the same as itself, keeps every simplified map connected, prints the tree indented', { timeout: 600_000 }, async () => {
    expect(logs.length).toBeGreaterThan(10);
    const problems: string[] = [];
    for (const { file } of logs) {
      const doc = await documentOf(file);
      const d = diffDocuments(doc, structuredClone(doc));
      if (!d.same) problems.push(`${file}: not the same as itself: ${JSON.stringify(d.summary)}`);
      for (const s of diffSections) if (d.summary[s].unchanged !== (doc[s] as unknown[]).length) problems.push(`${file}: ${s}: ${d.summary[s].unchanged} of ${(doc[s] as unknown[]).length} paired`);
      const ids = doc.outcomes.map((o) => o.id);
      if (new Set(ids).size !== ids.length) problems.push(`${file}: outcome ids repeat: ${ids.join(', ')}`);

      const { mapProblems } = await import('./map-checks.js');
      for (const view of [defaultSimplification(doc), { activities: 0, paths: 0 }, { activities: 30, paths: 10 }, { activities: 100, paths: 0 }]) {
        for (const p of mapProblems(doc, simplify(doc, view))) problems.push(`${file} at ${view.activities}/${view.paths}: ${p}`);
      }
      // It opens readable: about 15 activities (a few more kept to connect others), all of them on a small log.
      const opened = simplify(doc, defaultSimplification(doc)).nodes.length - 2;
      const activities = doc.nodes.filter((n) => n.kind === 'activity').length;
      if (opened < Math.min(15, activities) || opened > 20) problems.push(`${file}: ${activities} activities open with ${opened}`);

      if (!renderMarkdown(doc).includes('\n## Performance\n')) problems.push(`${file}: no performance section`);
      let tree;
      try {
        tree = parseTree(doc.model.process_tree);
      } catch {
        continue;
      }
      expect(parseTree(indentedTree(doc.model.process_tree)), file).toEqual(tree);
    }
    expect(problems).toEqual([]);
  });
});

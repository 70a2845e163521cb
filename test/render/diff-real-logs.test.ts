/**
 * `pcg diff` over the shared real logs' documents (PCG_REAL_LOGS; skipped
 * without it), as a property: for each log's document d,
 *
 * - `pcg diff d.json d.json` says the same, every element paired unchanged;
 * - d against the document of a prefix of the same log (its first 60 % of
 *   events, in file order) lists exactly the sections whose compared content
 *   differs, by a plain JSON deep comparison of each section's elements
 *   (keyed as the diff pairs them, projected on the fields it compares);
 * - d against the document of the same events applied in another order (in
 *   reversed, shuffled batches) has equal counts and no section that differs.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../api/cli/main.js';
import { importLog } from '../../connectors/files/index.js';
import { buildDocument } from '../../engine/document/index.js';
import type { GraphDocument } from '../../engine/document/types.js';
import { diffDocuments, diffSections, type DiffSection } from '../../engine/render/diff.js';
import { pathText } from '../../engine/render/format.js';
import { isPrepared, prepareBatch, type PreparedBatch } from '../../engine/store/prepare.js';
import { MemoryProject } from '../../engine/store/memory-project.js';
import type { Batch, Position } from '../../engine/store/types.js';
import { classicLogs, optionsFor } from '../real-logs/manifest.js';
import { realLogs } from '../tools/pm4py.js';
import { scratchDir } from './helpers.js';

/** Logs up to this many events: the property is about the shapes of logs, not their size. */
const MAX_EVENTS = 30_000;

/** A MemoryProject that keeps every prepared batch it was given and every meta value set, to replay them cut or reordered. */
class Recording extends MemoryProject {
  readonly batches: PreparedBatch[] = [];
  readonly metas: [string, string][] = [];
  override setMeta(key: string, value: string): void {
    this.metas.push([key, value]);
    super.setMeta(key, value);
  }
  override apply(batch: Batch | PreparedBatch, position?: Position) {
    const prepared = isPrepared(batch) ? batch : prepareBatch(batch, this.limits, false);
    this.batches.push(prepared);
    return super.apply(prepared, position);
  }
}

/** A project fed these events of the recorded batches, in batches of `size`, with the recording's meta. */
function replay(rec: Recording, order: (events: number[]) => number[], size: number): GraphDocument {
  const all = rec.batches.flatMap((b) => b.events.map((e, i) => ({ e, at: b.locations[i] ?? '' })));
  const picked = order(all.map((_, i) => i)).map((i) => all[i]!);
  const project = new MemoryProject();
  for (const [k, v] of rec.metas) project.setMeta(k, v);
  const template = rec.batches[0]!;
  for (let i = 0; i < picked.length; i += size) {
    const part = picked.slice(i, i + size);
    project.apply({ ...template, events: part.map((p) => p.e), locations: part.map((p) => p.at), bodies: part.map(() => ''), rejected: [], duplicates: 0, objects: [], relations: [], records: part.length, items: part.length });
  }
  return buildDocument(project.snapshot()) as GraphDocument;
}

/** Each section's elements keyed as the diff pairs them, projected on the fields it compares, as plain JSON. */
function plain(doc: GraphDocument, section: DiffSection): Map<string, string> {
  const stages = new Map(doc.stages.map((s) => [s.id, s.name]));
  const rows: [string, unknown][] = (() => {
    switch (section) {
      case 'nodes':
        return doc.nodes.map((n) => [n.id, { kind: n.kind, label: n.label, stage: stages.get(n.stage) ?? n.stage, cases: n.cases, events: n.events, cases_repeating: n.cases_repeating }]);
      case 'edges':
        return doc.edges.map((e) => [e.id, { kind: e.kind, cases: e.cases }]);
      case 'variants':
        return doc.variants.map((v) => [pathText(v.path), { class: v.class, cases: v.cases, share: v.share }]);
      case 'decisions':
        return doc.decisions.map((d) => [d.at, { branches: d.branches.map((b) => [b.to, b.cases]), rules: d.rules.map((r) => [r.when, r.then]), explained: d.explained }]);
      case 'sequence_rules':
        return doc.sequence_rules.map((r) => [r.id, { type: r.type, statement: r.statement, holds: r.holds }]);
      case 'policies':
        return doc.policies.map((p) => [p.id, { kind: p.kind, statement: p.statement, threshold_hours: p.threshold_hours, share_met: p.share_met }]);
      case 'outcomes':
        return doc.outcomes.map((o) => [o.id, { end_activity: o.end_activity, kind: o.kind, cases: o.cases, share: o.share }]);
    }
  })();
  const out = new Map<string, string>();
  for (const [k, v] of rows) {
    let key = k;
    for (let n = 2; out.has(key); n++) key = `${k} #${n}`;
    out.set(key, JSON.stringify(v));
  }
  return out;
}

/** The sections whose plain content differs between two documents. */
function differing(a: GraphDocument, b: GraphDocument): DiffSection[] {
  return diffSections.filter((s) => {
    const x = plain(a, s);
    const y = plain(b, s);
    return x.size !== y.size || [...x].some(([k, v]) => y.get(k) !== v);
  });
}

/** The sections the diff lists a change in. */
function listed(a: GraphDocument, b: GraphDocument): DiffSection[] {
  const d = diffDocuments(a, b);
  return diffSections.filter((s) => d.summary[s].added + d.summary[s].removed + d.summary[s].changed > 0);
}

function mulberry(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe.skipIf(!realLogs)('pcg diff over the shared real logs', () => {
  const logs = classicLogs(MAX_EVENTS);

  it('finds each document the same as itself, lists exactly the sections a prefix changes, and none for the events in another order', { timeout: 900_000 }, async () => {
    expect(logs.length).toBeGreaterThan(10);
    const dir = scratchDir();
    const problems: string[] = [];
    let prefixSections = 0;
    for (const { file } of logs) {
      const rec = new Recording();
      await importLog(rec, join(realLogs!, file), optionsFor(file));
      const doc = buildDocument(rec.snapshot()) as GraphDocument;

      // pcg diff a.json a.json
      const path = join(dir, 'a.json');
      writeFileSync(path, JSON.stringify(doc));
      let out = '';
      const code = await main(['diff', path, path, '--format', 'json'], { out: (t: string) => void (out += t), err: () => undefined });
      const self = JSON.parse(out);
      if (code !== 0 || !self.same) problems.push(`${file}: pcg diff a.json a.json: exit ${code}, same ${self.same}`);
      for (const s of diffSections) if (self.summary[s].unchanged !== (doc[s] as unknown[]).length) problems.push(`${file}: ${s}: ${self.summary[s].unchanged} of ${(doc[s] as unknown[]).length} paired`);

      // A prefix: the sections listed are the sections whose content differs.
      const events = rec.batches.reduce((n, b) => n + b.events.length, 0);
      const prefix = replay(rec, (ix) => ix.slice(0, Math.ceil(events * 0.6)), 5_000);
      const want = differing(doc, prefix);
      const got = listed(doc, prefix);
      if (JSON.stringify(got) !== JSON.stringify(want)) problems.push(`${file}: prefix: diff lists ${got.join(', ') || 'nothing'}, contents differ in ${want.join(', ') || 'nothing'}`);
      if (diffDocuments(doc, prefix).same !== (want.length === 0 && prefix.source.events === doc.source.events)) problems.push(`${file}: prefix: same is wrong`);
      prefixSections += want.length;

      // The same events in another order: equal counts, nothing differs, the diff says the same.
      const random = mulberry(events);
      const reordered = replay(
        rec,
        (ix) => {
          const r = [...ix].reverse();
          for (let i = r.length - 1; i > 0; i--) {
            const j = Math.floor(random() * (i + 1));
            [r[i], r[j]] = [r[j]!, r[i]!];
          }
          return r;
        },
        997,
      );
      if (reordered.source.events !== doc.source.events || reordered.source.cases !== doc.source.cases) problems.push(`${file}: reordered: counts ${reordered.source.events}/${reordered.source.cases}, not ${doc.source.events}/${doc.source.cases}`);
      const moved = differing(doc, reordered);
      const said = listed(doc, reordered);
      if (moved.length || said.length || !diffDocuments(doc, reordered).same) problems.push(`${file}: reordered: contents differ in ${moved.join(', ') || 'nothing'}, diff lists ${said.join(', ') || 'nothing'}`);
    }
    console.log(`diff over ${logs.length} real logs: ${prefixSections} sections changed by a 60 % prefix, each listed by the diff`);
    expect(prefixSections).toBeGreaterThan(logs.length);
    expect(problems).toEqual([]);
  });
});

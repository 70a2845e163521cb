import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { importLog } from '../../connectors/files/index.js';
import { writeSimulation } from '../../connectors/simulator/index.js';
import { buildDocument } from '../../engine/document/index.js';
import type { GraphDocument, Plain } from '../../engine/document/types.js';
import { MemoryProject } from '../../engine/store/memory-project.js';

/** A scratch folder for one describe block, removed after it. Call it while the block is collected. */
export function scratchDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pcg-render-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Writes a simulated NDJSON log into `dir` and returns its path. */
export async function simulatedLog(dir: string, model = 'order-to-cash', cases = 400, seed = 3, openShare?: number): Promise<string> {
  const file = join(dir, `${model}-${cases}-${seed}${openShare === undefined ? '' : `-open${openShare}`}.ndjson`);
  await writeSimulation({ model, cases, seed, ...(openShare === undefined ? {} : { openShare }) }, 'ndjson', file);
  return file;
}

/**
 * The same log with one more activity: `activity` one hour after the last
 * event of every fourth case.
 */
export function withExtraActivity(file: string, out: string, activity: string): void {
  const events = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { caseId: string; activity: string; timestamp: string });
  const last = new Map<string, string>();
  for (const e of events) if (!last.has(e.caseId) || e.timestamp > last.get(e.caseId)!) last.set(e.caseId, e.timestamp);
  const extra = [...last]
    .filter((_, i) => i % 4 === 0)
    .map(([caseId, t]) => ({ caseId, activity, timestamp: new Date(Date.parse(t) + 3_600_000).toISOString(), eventId: `${caseId}-extra` }));
  writeFileSync(out, [...events, ...extra].map((e) => JSON.stringify(e)).join('\n') + '\n');
}

/** The graph document of a log file, built the way `pcg graph FILE` builds it. */
export async function documentOf(file: string): Promise<GraphDocument> {
  const project = new MemoryProject();
  await importLog(project, file);
  return buildDocument(project.snapshot()) as GraphDocument;
}

/** Every number and every `N%` / `N cases` figure a document holds, for "nothing invented" checks. */
export function figuresOf(doc: GraphDocument): { numbers: Set<number>; texts: string[] } {
  const numbers = new Set<number>();
  const texts: string[] = [];
  const walk = (v: Plain | object) => {
    if (typeof v === 'number') numbers.add(v);
    else if (typeof v === 'string') texts.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(doc as unknown as object);
  return { numbers, texts };
}

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { uploadQuery } from '../../api/routes/datasets.js';
import { readOptionsUsage } from '../../api/cli/inspect.js';
import { detectFormat } from '../../connectors/files/detect.js';
import { FORMAT_NAMES, importOptionsSchema, inputFormats, SOURCE_META_KEYS, describeSource, type FormatName } from '../../connectors/files/index.js';
import { openInput } from '../../connectors/files/input.js';
import { READING_TRAIT_META, readingTraitsOf } from '../../engine/reading/traits.js';
import { ocelJson } from './ocel-logs.js';
import { scratch } from './helpers.js';

/**
 * The recipe "Adding an input format" (docs/architecture.md): a reader and one row of
 * connectors/files/formats.ts. Everything that lists formats derives from the table, and a row
 * that lacks a part fails here.
 */
const root = join(import.meta.dirname, '..', '..');

/** A small file of each format, for detection. A new format's sample belongs here too (detection is then checked). */
const samples: Partial<Record<FormatName, (dir: string) => string | Buffer>> = {
  xes: () => '<?xml version="1.0"?>\n<log xes.version="1.0"><trace><event><string key="concept:name" value="A"/></event></trace></log>',
  csv: () => 'case,activity,timestamp\nc1,A,2024-01-01T00:00:00Z\n',
  ndjson: () => '{"caseId":"c1","activity":"A","timestamp":"2024-01-01T00:00:00Z"}\n',
  'ocel2-json': () => ocelJson({ o1: 'order' }, [['place', 'o1']]),
  'ocel2-xml': () => '<?xml version="1.0"?>\n<log><object-types/><event-types/><objects/><events/></log>',
  'ocel2-sqlite': (dir) => {
    const path = join(dir, 'made.sqlite');
    const db = new Database(path);
    db.exec('CREATE TABLE event (ocel_id TEXT, ocel_type TEXT); CREATE TABLE object (ocel_id TEXT, ocel_type TEXT); CREATE TABLE event_object (ocel_event_id TEXT, ocel_object_id TEXT)');
    db.close();
    return readFileSync(path);
  },
  'ocel1-json': () => '{"ocel:global-log": {"ocel:attribute-names": []}, "ocel:events": {}, "ocel:objects": {}}',
  'ocel1-xml': () => '<?xml version="1.0"?>\n<log><global scope="object"><list key="object-types"/></global></log>',
};

describe('the input formats table', () => {
  it('gives every format a kind, a summary, a detection, a reader and every trait', () => {
    const traitNames = ['zonelessTimes', 'objectCentric', 'casesTogether', 'rawRecords', 'readWhole'].sort();
    for (const name of FORMAT_NAMES) {
      const row = inputFormats[name];
      expect(row.kind, name).toMatch(/\S/);
      expect(row.summary, name).toMatch(/\S/);
      expect(['sqlite', 'markup', 'json', 'text'], name).toContain(row.detect.family);
      expect(typeof row.open, name).toBe('function');
      expect(Object.keys(row.traits).sort(), name).toEqual(traitNames);
      for (const value of Object.values(row.traits)) expect(typeof value, name).toBe('boolean');
    }
  });

  it('leaves at most one format per content family to take what no test claims', () => {
    for (const family of ['sqlite', 'markup', 'json', 'text'] as const) {
      const plain = FORMAT_NAMES.filter((n) => inputFormats[n].detect.family === family && !('test' in inputFormats[n].detect));
      expect(plain.length, family).toBeLessThanOrEqual(1);
    }
  });

  it('is what the option enum, the upload route and the command line accept', () => {
    expect(importOptionsSchema.shape.format.unwrap().options).toEqual(FORMAT_NAMES);
    for (const name of FORMAT_NAMES) {
      expect(uploadQuery.safeParse({ format: name }).success, name).toBe(true);
      expect(readOptionsUsage).toContain(name);
    }
    expect(uploadQuery.safeParse({ format: 'parquet' }).success).toBe(false);
    expect(importOptionsSchema.safeParse({ format: 'parquet' }).success).toBe(false);
  });

  it('detects each sample as its format', async () => {
    const s = scratch();
    const detected: Record<string, string> = {};
    for (const [name, make] of Object.entries(samples)) detected[name] = await detectFormat(await openInput(s.file(`sample-${name}`, make!(s.dir))));
    expect(detected).toEqual(Object.fromEntries(Object.keys(samples).map((n) => [n, n])));
  });

  it('tells the reading its traits through the meta, whatever the format', () => {
    expect(SOURCE_META_KEYS).toEqual(expect.arrayContaining(Object.values(READING_TRAIT_META)));
    for (const name of FORMAT_NAMES) {
      const meta: Record<string, string> = {};
      describeSource({ setMeta: (k, v) => (meta[k] = v) }, { format: name, caseNotion: 'c' }, {});
      for (const key of Object.keys(meta)) expect(SOURCE_META_KEYS, key).toContain(key);
      const { zonelessTimes, objectCentric } = inputFormats[name].traits;
      expect(readingTraitsOf(meta), name).toEqual({ zonelessTimes, objectCentric });
    }
    expect(readingTraitsOf({})).toBeUndefined();
  });

  it('reads the traits of a project imported before they were kept from its format', () => {
    expect(readingTraitsOf({ format: 'ndjson' })).toEqual({ zonelessTimes: false, objectCentric: false });
    expect(readingTraitsOf({ format: 'xes' })).toEqual({ zonelessTimes: true, objectCentric: false });
    expect(readingTraitsOf({ format: 'ocel2-sqlite' })).toEqual({ zonelessTimes: true, objectCentric: true });
  });

  it('keeps format names out of engine/ (but the frozen reading of old projects) and out of everything that is not the table', () => {
    const quoted = new RegExp(`['"\`](${FORMAT_NAMES.join('|')})['"\`]`);
    const offenders: string[] = [];
    const walk = (dir: string): string[] => readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : n.endsWith('.ts') ? [join(dir, n)] : []));
    // The simulator's command names the formats it writes (connectors/simulator/writers.ts), not those it reads.
    const allowed = new Set(['engine/reading/traits.ts', 'connectors/files/formats.ts', 'api/cli/simulate.ts']);
    for (const file of [...walk(join(root, 'engine')), ...walk(join(root, 'api')).filter((f) => !f.includes('/web/')), join(root, 'connectors/files/index.ts'), join(root, 'connectors/files/inspect.ts'), join(root, 'connectors/files/detect.ts')]) {
      const rel = relative(root, file);
      if (allowed.has(rel)) continue;
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (quoted.test(line)) offenders.push(`${rel}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(offenders).toEqual([]);
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ImportOptions } from '../../connectors/files/index.js';
import { realLogs } from '../tools/pm4py.js';

/**
 * The shared real logs every real-log test reads: the rows of MANIFEST.tsv and
 * MANIFEST-added.tsv (same columns) in the PCG_REAL_LOGS folder, with the
 * import options each needs stated here, where the suite reads them, and the
 * tier each runs in.
 *
 * Tiers: every log runs whenever PCG_REAL_LOGS is set (CI), except that a
 * `large` log, whose import alone takes most of a minute on a shared 2-core
 * machine, runs in audit.test.ts only (the audit must hold on every shared
 * log); the other test files read it again only when PCG_REAL_LOGS_LARGE is
 * set too (to anything but 0). That keeps `make test` well inside CI's time.
 */

export interface LogRow {
  /** Path under the logs folder. */
  file: string;
  /** The manifest's format column: xes, xes.gz, csv, csv.gz, ocel2-json, ocel2-sqlite, ocel2-xml, 'jsonocel (OCEL1.0)', ... */
  format: string;
  /** Cases (classic logs) or objects (OCEL: the "970 objects" column), counted from the file. */
  cases: number;
  events: number;
  /** The manifest it comes from. */
  manifest: 'MANIFEST.tsv' | 'MANIFEST-added.tsv';
  /** Import options the log needs (empty when detection finds everything). */
  options: ImportOptions;
  tier: 'default' | 'large';
}

/**
 * Per-file import options: columns a CSV reader cannot find by name (checked
 * with `pcg inspect FILE`; the columns are named in the logs folder's
 * HEADERS.txt). Every other log reads with detection alone.
 */
export const IMPORT_OPTIONS: Readonly<Record<string, ImportOptions>> = {
  // ServiceNow export: no column is named like a case, activity or time; one row per update of the incident record.
  'ibm/servicenow_incidents.csv.gz': { caseColumn: 'number', activityColumn: 'incident_state', timestampColumn: 'sys_updated_at', resourceColumn: 'assigned_to' },
  // Disco export of Sepsis: the resource is the last column, org:group, which detection does not take for a resource.
  'eventdataR/sepsis.csv': { resourceColumn: 'org:group' },
};

/**
 * Logs of the large tier: the full Road Traffic Fine log (150,370 cases,
 * 561,470 events, 185 MB of XML) takes 40 s to import on a loaded 2-core
 * machine and about a minute per test file that reads it.
 */
export const LARGE_LOGS: readonly string[] = ['roadtraffic/Road_Traffic_Fine_Management_Process.xes.gz'];

/** Whether the large tier runs (PCG_REAL_LOGS_LARGE set to anything but '' or '0'). */
export const largeTier: boolean = !!process.env.PCG_REAL_LOGS_LARGE && process.env.PCG_REAL_LOGS_LARGE !== '0';

/** The import options of one log ({} when it needs none). */
export function optionsFor(file: string): ImportOptions {
  return IMPORT_OPTIONS[file] ?? {};
}

function read(folder: string, name: LogRow['manifest']): LogRow[] {
  const [head, ...lines] = readFileSync(join(folder, name), 'utf8').trim().split('\n');
  const cols = head!.split('\t');
  const at = (col: string) => {
    const i = cols.indexOf(col);
    if (i < 0) throw new Error(`${name} has no column ${col}`);
    return i;
  };
  return lines.map((l) => {
    const c = l.split('\t');
    const file = c[at('file')]!;
    return {
      file,
      format: c[at('format')]!,
      cases: parseInt(c[at('approx_cases')]!, 10),
      events: Number(c[at('approx_events')]),
      manifest: name,
      options: optionsFor(file),
      tier: LARGE_LOGS.includes(file) ? 'large' : 'default',
    };
  });
}

/**
 * Every log of both manifests (MANIFEST.tsv first), in manifest order. With
 * `all`, large-tier logs are listed even when their tier is off (the audit);
 * otherwise only the logs that run.
 */
export function manifestLogs(opts: { all?: boolean } = {}): LogRow[] {
  if (!realLogs) return [];
  const rows = [...read(realLogs, 'MANIFEST.tsv'), ...read(realLogs, 'MANIFEST-added.tsv')];
  return opts.all || largeTier ? rows : rows.filter((r) => r.tier === 'default');
}

export const isOcel = (r: LogRow): boolean => /ocel/i.test(r.format);
export const isXes = (r: LogRow): boolean => r.format === 'xes' || r.format === 'xes.gz';
export const isClassic = (r: LogRow): boolean => !isOcel(r);

/** The classic (XES and CSV) logs that run, optionally only those of at most maxEvents events. */
export function classicLogs(maxEvents = Infinity): LogRow[] {
  return manifestLogs().filter((r) => isClassic(r) && r.events <= maxEvents);
}

/** A file name made safe for a temporary store's name. */
export const storeName = (file: string): string => `${file.replace(/[^a-z0-9]+/gi, '_')}.sqlite`;

import { FileImportError } from './errors.js';

/** What a CSV column can be for the reader; every other column becomes an attribute. */
export type ColumnRole = 'case' | 'activity' | 'timestamp' | 'resource' | 'start';

/** Column names the user gave (`--case` …): exact header text, always preferred to a guess. */
export type GivenColumns = Partial<Record<ColumnRole, string>>;

/**
 * Header names are compared without case and without separators (space, `_`,
 * `-`, `.`), so `Case ID`, `case_id`, `CaseId` and `CASE.ID` are one name; `:`
 * is kept because pm4py's `case:concept:name` and `concept:name` differ by it.
 */
export const normalizeHeader = (name: string) => name.toLowerCase().replace(/[\s_.-]+/g, '');

/**
 * Per role, the names looked for, best first: pm4py exports, Disco/Celonis,
 * Simod, and the predictive-process-monitoring benchmarks (`CaseID`,
 * `ActivityID`, `CompleteTimestamp`; Camargo's `caseid`, `task`, `user`,
 * `start_timestamp`, `end_timestamp`). `activityid` comes after the named
 * forms: those benchmarks code activities as numbers in it, and a log that also
 * has an `Activity` column means that one. Id-like names follow their plain
 * form for the same reason (`resource` before `resourceid`).
 */
export const usualNames: Record<ColumnRole, readonly string[]> = {
  case: ['case:concept:name', 'caseid', 'case', 'casename', 'caseconcept:name', 'traceid', 'casekey'],
  activity: ['concept:name', 'activity', 'activityname', 'activityid', 'activitylabel', 'activitycode', 'event', 'eventname', 'task', 'action'],
  timestamp: ['time:timestamp', 'completetimestamp', 'endtimestamp', 'endtime', 'timestamp', 'completetime', 'completiontimestamp', 'completiontime', 'eventtimestamp', 'eventtime', 'time', 'datetime', 'date'],
  resource: ['org:resource', 'resource', 'resourcename', 'resourceid', 'user', 'userid', 'performer', 'agent'],
  start: ['starttimestamp', 'starttime', 'start', 'time:start'],
};

const roles: readonly ColumnRole[] = ['case', 'activity', 'timestamp', 'resource', 'start'];
// A log without a timestamp column records only the order of its steps: read, with no clock (csv.ts), unless a
// timestamp column was named and is absent.
const required = new Set<ColumnRole>(['case', 'activity']);
const flag = (role: ColumnRole) => `--${role === 'start' ? 'start-timestamp' : role}`;

/**
 * The column index of every role (-1: none). Given names are placed first and
 * taken out of the guessing, so a flag wins even over a name that would have
 * been guessed for another role (`--activity Resource` leaves no resource).
 */
export function findColumns(header: string[], given: GivenColumns, delimiter: string): Record<ColumnRole, number> {
  const found = { case: -1, activity: -1, timestamp: -1, resource: -1, start: -1 };
  const taken = new Set<number>();
  for (const role of roles) {
    const wanted = given[role];
    if (wanted === undefined) continue;
    const i = header.indexOf(wanted);
    if (i < 0) throw missing(header, `no column '${wanted}' (given for the ${role})`, delimiter);
    found[role] = i;
    taken.add(i);
  }
  const names = header.map(normalizeHeader);
  for (const role of roles) {
    if (given[role] !== undefined) continue;
    const i = guess(names, role, taken);
    if (i < 0 && required.has(role)) {
      throw missing(header, `no ${role} column found (looked for ${usualNames[role].join(', ')}, in any case and with or without spaces, _ - .); name it with ${flag(role)}`, delimiter);
    }
    found[role] = i;
    if (i >= 0) taken.add(i);
  }
  return found;
}

/** A value that begins with a date (2024-01-31, 31/1/2024, 2024.01.31 …), with or without a time after it. */
const dateStart = /^\s*\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}(?:$|[T\s])/;

/**
 * A log without a timestamp column is read as order only, unless a column of the first data row holds a date: then
 * the log has a clock under a name not looked for, and reading it as order only would drop it. Refused as before.
 */
export function refuseUnnamedClock(header: string[], row: string[] | undefined, used: ReadonlySet<number>, delimiter: string): void {
  const dated = header.filter((_, i) => !used.has(i) && row?.[i] !== undefined && dateStart.test(row[i]!));
  if (dated.length) {
    throw missing(header, `no timestamp column found (looked for ${usualNames.timestamp.join(', ')}, in any case and with or without spaces, _ - .), but ${dated.map((h) => JSON.stringify(h)).join(', ')} holds dates; name it with --timestamp`, delimiter);
  }
}

function guess(names: string[], role: ColumnRole, taken: Set<number>): number {
  for (const candidate of usualNames[role]) {
    const i = names.findIndex((n, at) => n === candidate && !taken.has(at));
    if (i >= 0) return i;
  }
  return -1;
}

function missing(header: string[], message: string, delimiter: string): FileImportError {
  const shown = header.length > 12 ? [...header.slice(0, 12), '…'] : header;
  let hint = '';
  if (header.length === 1) {
    const other = [',', ';', '\t', '|'].find((c) => c !== delimiter && header[0]!.includes(c));
    hint = other
      ? ` The header is one column with '${other === '\t' ? '\\t' : other}' inside: wrong delimiter? (delimiter used: '${delimiter === '\t' ? '\\t' : delimiter}'; try --delimiter '${other === '\t' ? '\\t' : other}')`
      : ' The header is a single column: wrong delimiter?';
  }
  return new FileImportError('missing_column', `${message}. Columns: ${shown.map((h) => JSON.stringify(h)).join(', ')}.${hint}`);
}

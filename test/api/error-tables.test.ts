import Database from 'better-sqlite3';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BackupError } from '../../api/backup/errors.js';
import { CatalogTooNewError } from '../../api/catalog/database.js';
import { UsageError } from '../../api/cli/command.js';
import { ConfigError } from '../../api/config.js';
import { StartupError } from '../../api/data-dir.js';
import { DescriptorLimitError } from '../../api/descriptors.js';
import { engineToApi, fileToApi, foreignEntry, foreignErrors, isSqliteError } from '../../api/error-tables.js';
import { ApiError, apiErrorCodes, apiErrorTable, toApiError } from '../../api/errors.js';
import { exitCode, OperatorError, operatorErrorTable } from '../../api/exit-codes.js';
import { retractOnThread } from '../../api/retract-thread.js';
import { OverQuota } from '../../api/thread-errors.js';
import { uploadChecks } from '../../api/upload-checks.js';
import { usageThread } from '../../api/usage-thread.js';
import { WorkThreads } from '../../api/work-threads.js';
import type { WorkOutcome } from '../../api/work-thread.js';
import { RecordTooLong } from '../../connectors/files/csv-splitter.js';
import { FileImportError, fileErrorCodes } from '../../connectors/files/errors.js';
import { DEFAULT_READ_LIMITS } from '../../connectors/files/limits.js';
import { openLogOnThread } from '../../connectors/files/reader-thread.js';
import { XmlError } from '../../connectors/files/xml-tokenizer.js';
import { fromWire, PcgError, toWire, unwrap, wireErrorNames } from '../../engine/error-base.js';
import { DEFAULT_EVENT_LIMITS, EngineError, engineErrorCodes, LineTooLong, type EngineErrorCode } from '../../engine/index.js';

/**
 * One error vocabulary (docs/architecture.md, "Errors"): every registry code has its status or exit code, every
 * class comes back from a thread as itself, foreign errors map by the one table, and nothing maps by class name.
 */
const dirs: string[] = [];
const scratch = () => {
  const d = mkdtempSync(join(tmpdir(), 'pcg-errors-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A state file of a pcg newer than this one: opening it is EngineError schema_too_new. */
function tooNewState(dir: string): string {
  const file = join(dir, 'state.sqlite');
  const db = new Database(file);
  db.exec('CREATE TABLE t (x); PRAGMA user_version = 9999');
  db.close();
  return file;
}

describe('the registries', () => {
  it('give every API code a 4xx or 5xx status, and the statuses clients read are the table’s', () => {
    for (const [code, row] of Object.entries(apiErrorTable)) {
      expect(row.status >= 400 && row.status < 600, code).toBe(true);
      expect(apiErrorCodes[code as keyof typeof apiErrorCodes]).toBe(row.status);
      expect(new ApiError(code as keyof typeof apiErrorTable, 'm').retriable).toBe(row.retriable);
    }
    expect([apiErrorCodes.unavailable, apiErrorCodes.rate_limited, apiErrorCodes.limit_exceeded, apiErrorCodes.not_found]).toEqual([503, 429, 422, 404]);
  });

  it('map every engine code to a status, as toApiError answers it', () => {
    const statuses = Object.fromEntries(Object.keys(engineErrorCodes).map((c) => [c, toApiError(new EngineError(c as EngineErrorCode, 'm')).status]));
    expect(statuses).toEqual({
      invalid_event: 400,
      line_too_long: 500,
      schema_too_new: 500,
      state_corrupt: 500,
      invalid_argument: 400,
      state_pruned: 500,
      state_busy: 503,
      position_overlap: 500,
      position_gap: 500,
    });
    expect(Object.keys(engineToApi).sort()).toEqual(Object.keys(engineErrorCodes).sort());
    expect(toApiError(new EngineError('state_busy', 'busy')).headers).toEqual({ 'retry-after': '2' });
    expect(toApiError(new EngineError('state_corrupt', '/srv/secret/path')).message).toBe('the project state could not be read');
  });

  it('map every file code to a status: 413 over a size limit, 422 over another, 400 for the rest', () => {
    expect(Object.keys(fileToApi).sort()).toEqual(Object.keys(fileErrorCodes).sort());
    for (const code of Object.keys(fileErrorCodes) as (keyof typeof fileErrorCodes)[]) {
      const status = apiErrorTable[fileToApi[code]].status;
      expect(status, code).toBe(code === 'content_too_large' ? 413 : code === 'limit_exceeded' ? 422 : 400);
    }
  });

  it('give every operator code an exit code, 2 for the command line and 1 for the rest, and the classes carry it', () => {
    for (const [code, row] of Object.entries(operatorErrorTable)) expect(row.exit, code).toBe(code === 'usage' || code === 'config_invalid' ? 2 : 1);
    expect([new UsageError('u').exit, new ConfigError('c').exit, new StartupError('s').exit, new BackupError('checksum_mismatch', 'b').exit]).toEqual([2, 2, 1, 1]);
    expect([exitCode('engine_refused'), exitCode('file_refused')]).toEqual([1, 1]);
  });
});

describe('the wire form', () => {
  const samples: PcgError[] = [
    new EngineError('state_busy', 'busy'),
    new LineTooLong(7, 100),
    new FileImportError('unknown_format', 'not a log'),
    new XmlError('unclosed tag', 12),
    new RecordTooLong(3, 64),
    new ApiError('rate_limited', 'wait', { 'retry-after': '1' }),
    new OverQuota(9),
    new UsageError('give a file'),
    new ConfigError('PCG_PORT: not a number'),
    new StartupError('locked'),
    new CatalogTooNewError('too new'),
    new DescriptorLimitError('too few'),
    new BackupError('backup_invalid', 'no manifest'),
    new OperatorError('file_unusable', 'cannot write'),
  ];

  it('gives back every registered class with its code, retriable and fields', () => {
    for (const error of samples) {
      const back = fromWire(structuredClone(toWire(error)));
      expect(back.constructor, error.name).toBe(error.constructor);
      expect({ ...back, stack: undefined }).toEqual({ ...error, stack: undefined });
      expect([back.message, (back as PcgError).code, (back as PcgError).retriable]).toEqual([error.message, error.code, error.retriable]);
    }
    // Every class registered is among the samples: a new class must show it makes the round trip.
    expect(samples.map((e) => e.name).sort()).toEqual(wireErrorNames().sort());
  });

  it('makes the nearest registered base of a class the receiving side has not loaded, with the same code', () => {
    const back = fromWire({ ...toWire(new XmlError('cut', 2)), name: 'SomeNewReaderError' });
    expect(back).toBeInstanceOf(FileImportError);
    expect((back as FileImportError).code).toBe('xml_malformed');
  });

  it('keeps a foreign error’s name and code, so it maps as if thrown on the loop', () => {
    const busy = fromWire(toWire(Object.assign(new Error('database is locked'), { name: 'SqliteError', code: 'SQLITE_BUSY' })));
    expect([busy.name, toApiError(busy).code, toApiError(busy).status]).toEqual(['SqliteError', 'unavailable', 503]);
    const kafka = toWire(Object.assign(new Error('broker gone'), { name: 'KafkaJSConnectionError', retriable: true }));
    expect(kafka).toEqual({ name: 'KafkaJSConnectionError', message: 'broker gone', retriable: true });
  });
});

describe('the foreign table', () => {
  it('maps a real SQLITE_BUSY to 503 with Retry-After, and its extended codes with it', () => {
    const file = join(scratch(), 'busy.sqlite');
    const a = new Database(file);
    const b = new Database(file, { timeout: 0 });
    a.exec('CREATE TABLE t (x)');
    a.exec('BEGIN IMMEDIATE');
    let busy: unknown;
    try {
      b.exec('BEGIN IMMEDIATE');
    } catch (error) {
      busy = error;
    } finally {
      a.exec('ROLLBACK');
      a.close();
      b.close();
    }
    expect((busy as { code: string }).code).toBe('SQLITE_BUSY');
    expect(isSqliteError(busy)).toBe(true);
    expect(foreignEntry(busy)).toMatchObject({ code: 'SQLITE_BUSY', from: 'sqlite', retriable: true });
    const api = toApiError(busy);
    expect([api.status, api.code, api.message, api.headers]).toEqual([503, 'unavailable', 'the project is busy; retry shortly', { 'retry-after': '1' }]);
    expect(toApiError(Object.assign(new Error('x'), { code: 'SQLITE_BUSY_SNAPSHOT' })).status).toBe(503);
  });

  it('maps SQLITE_FULL and ENOSPC to a 500 that is not retriable and names nothing of the server', () => {
    for (const code of ['SQLITE_FULL', 'ENOSPC']) {
      const error = Object.assign(new Error(`${code}: /var/lib/pcg/secret`), { code });
      expect(foreignEntry(error)).toMatchObject({ code, api: 'internal_error', retriable: false });
      const api = toApiError(error);
      expect([api.status, api.code, api.message, api.retriable]).toEqual([500, 'internal_error', 'an internal error occurred', false]);
    }
    expect(foreignEntry(Object.assign(new Error('x'), { code: 'EMFILE' }))).toMatchObject({ from: 'node', retriable: true });
  });

  it('maps a real ENOENT, fastify’s codes and a zod error by code, never by class name', () => {
    let missing: unknown;
    try {
      readFileSync(join(scratch(), 'nothing'));
    } catch (error) {
      missing = error;
    }
    expect(foreignEntry(missing)).toMatchObject({ code: 'ENOENT', from: 'node' });
    expect(toApiError(missing).status).toBe(500);
    expect(toApiError(Object.assign(new Error('x'), { code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415 })).code).toBe('unsupported_media_type');
    expect(toApiError(Object.assign(new Error('x'), { code: 'FST_ERR_CTP_BODY_TOO_LARGE' }), { bodyLimitBytes: 10 }).message).toMatch(/at most 10 bytes/);
    expect(foreignEntry(Object.assign(new Error('x'), { issues: [] }))?.code).toBe('ZOD_INVALID');
    for (const row of Object.values(foreignErrors)) expect(apiErrorTable[row.api].status).toBeGreaterThanOrEqual(400);
  });
});

describe('errors thrown on each kind of thread arrive in their class, with their code', () => {
  it('the retraction thread: EngineError schema_too_new', async () => {
    const error = await retractOnThread(tooNewState(scratch()), 'dataset:x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EngineError);
    expect((error as EngineError).code).toBe('schema_too_new');
  });

  it('a work thread: EngineError from a store, ApiError for a project gone, each mapped as on the loop', async () => {
    const threads = new WorkThreads(1, { limits: DEFAULT_EVENT_LIMITS, cachedCases: 100, cachedCaseTextBytes: 2 ** 20 });
    try {
      const dir = scratch();
      const engine = await threads.run<WorkOutcome<unknown>>(0, { ingest: { file: tooNewState(dir), records: [] } }).then(unwrap).catch((e: unknown) => e);
      expect(engine).toBeInstanceOf(EngineError);
      expect((engine as EngineError).code).toBe('schema_too_new');
      const gone = await threads.run<WorkOutcome<unknown>>(0, { ingest: { file: join(dir, 'gone.sqlite'), records: [] } }).then(unwrap).catch((e: unknown) => e);
      expect(gone).toBeInstanceOf(ApiError);
      expect([(gone as ApiError).code, (gone as ApiError).status]).toEqual(['not_found', 404]);
    } finally {
      await threads.close();
    }
  });

  it('an upload check thread and a reader thread: FileImportError with the reader’s code', async () => {
    const dir = scratch();
    const binary = join(dir, 'image.bin');
    writeFileSync(binary, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0, 1, 2, 3, 0]));
    const checks = uploadChecks({ threads: 1, budgetMs: 60_000, heapMiB: 256 });
    try {
      const checked = await checks.check({ path: binary, options: {}, limits: DEFAULT_READ_LIMITS }, new AbortController().signal).catch((e: unknown) => e);
      expect(checked).toBeInstanceOf(FileImportError);
      expect((checked as FileImportError).code).toBe('binary_file');
    } finally {
      await checks.close();
    }
    const read = await openLogOnThread(join(dir, 'nothing.xes'), {}, DEFAULT_READ_LIMITS).catch((e: unknown) => e);
    expect(read).toBeInstanceOf(FileImportError);
    expect((read as FileImportError).code).toBe('file_not_found');
  });

  it('the usage thread: SQLite’s error keeps its code', async () => {
    const file = join(scratch(), 'not-a-db.sqlite');
    writeFileSync(file, 'this is not a database, but long enough to be read as one by SQLite'.repeat(20));
    const usage = usageThread();
    try {
      const error = await usage.measure([file]).catch((e: unknown) => e);
      expect(isSqliteError(error)).toBe(true);
      expect((error as { code: string }).code).toBe('SQLITE_NOTADB');
    } finally {
      await usage.close();
    }
  });
});

describe('no mapping by class name', () => {
  const root = join(import.meta.dirname, '..', '..');
  const sources = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      if (name === 'node_modules' || name === 'dist') return [];
      if (statSync(path).isDirectory()) return sources(path);
      return /\.(ts|mjs)$/.test(name) ? [path] : [];
    });

  it('no source compares an error’s name with a string, lists class names to match, or extends Error but the base', () => {
    const offenders: string[] = [];
    for (const layer of ['engine', 'connectors', 'api']) {
      for (const file of sources(join(root, layer))) {
        const rel = relative(root, file);
        // The web page is a browser bundle with its own small client; it throws nothing across threads.
        if (rel.startsWith(join('api', 'web', 'src'))) continue;
        const text = readFileSync(file, 'utf8');
        if (/\.name\s*[!=]==?\s*['"`][A-Za-z]*(Error|Fault)['"`]/.test(text)) offenders.push(`${rel}: compares a name`);
        if (/\[\s*['"][A-Za-z]*Error['"]\s*,/.test(text) || /\(\s*[A-Za-z]*Error\s*\|\s*[A-Za-z]*Error/.test(text)) offenders.push(`${rel}: lists class names`);
        if (/extends Error\b/.test(text) && rel !== join('engine', 'error-base.ts')) offenders.push(`${rel}: extends Error, not PcgError`);
      }
    }
    expect(offenders).toEqual([]);
  });
});

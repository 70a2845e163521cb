import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { parentPort, Worker } from 'node:worker_threads';
import { fromWire, toWire, type ThreadOutcome } from './thread-errors.js';

/** What a project's state files keep, as a tenant's quotas count it (api/usage.ts). */
export interface StoredUse {
  /** Rows of `event`: kept events (pruned ones are gone). */
  events: number;
  deadLetters: number;
  /** Stored bytes of the dead letters: the refused record and the message's own bytes. */
  deadLetterBytes: number;
}

/** Measures the state files of one project, all of them together. */
export type UseMeter = (files: readonly string[]) => Promise<StoredUse>;

const LETTERS = 'SELECT count(*) AS n, coalesce(sum(octet_length(payload) + coalesce(octet_length(raw), 0)), 0) AS bytes FROM dead_letter';
/** A file an older pcg wrote and nobody has opened since keeps no message bytes yet. */
const LETTERS_BEFORE_RAW = 'SELECT count(*) AS n, coalesce(sum(octet_length(payload)), 0) AS bytes FROM dead_letter';

/**
 * Counts rows: each count reads its whole table (about 45 ms per million events, 140 ms for 100,000 dead
 * letters of a few hundred bytes), which is why it runs here, on a thread, and only now and then. A file
 * that is gone counts nothing; one that is not a project store yet (just made) counts nothing.
 */
export function measureFiles(files: readonly string[]): StoredUse {
  const use: StoredUse = { events: 0, deadLetters: 0, deadLetterBytes: 0 };
  for (const file of files) {
    if (!existsSync(file)) continue;
    // Read and write, never written: a read-only connection cannot make the -shm of a file whose writer has closed.
    const db = new Database(file, { fileMustExist: true });
    try {
      db.pragma('busy_timeout = 5000');
      const tables = new Set(db.prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all());
      if (tables.has('event')) use.events += db.prepare<[], number>('SELECT count(*) FROM event').pluck().get()!;
      if (tables.has('dead_letter')) {
        const hasRaw = db.prepare<[], { name: string }>('PRAGMA table_info(dead_letter)').all().some((c) => c.name === 'raw');
        const letters = db.prepare<[], { n: number; bytes: number }>(hasRaw ? LETTERS : LETTERS_BEFORE_RAW).get()!;
        use.deadLetters += letters.n;
        use.deadLetterBytes += letters.bytes;
      }
    } finally {
      db.close();
    }
  }
  return use;
}

/** A thread stops after this long without work; the next measurement starts another. */
const IDLE_MS = 30_000;

/**
 * Measurements on one thread of their own, started on demand, stopped when idle: a tenant's projects are
 * measured when its quota is first asked, then now and then (api/usage.ts), never on the request loop.
 */
export function usageThread(): { measure: UseMeter; close(): Promise<void> } {
  let worker: Worker | undefined;
  let idle: NodeJS.Timeout | undefined;
  let next = 0;
  const waiting = new Map<number, { resolve: (use: StoredUse) => void; reject: (error: Error) => void }>();
  const fail = (error: Error) => {
    for (const w of waiting.values()) w.reject(error);
    waiting.clear();
    worker = undefined;
  };
  const start = (): Worker => {
    const w = new Worker(new URL('./workers/usage.mjs', import.meta.url));
    w.on('message', (m: Measured) => {
      const job = waiting.get(m.id);
      waiting.delete(m.id);
      // The error in its class (a busy file is SQLite's busy, as on the loop): the one wire form.
      if ('ok' in m) job?.resolve(m.ok);
      else job?.reject(fromWire(m.error));
      if (waiting.size === 0) {
        // Idle: it neither keeps the process alive nor stays for long.
        w.unref();
        idle = setTimeout(() => void w.terminate(), IDLE_MS).unref();
      }
    });
    w.on('error', (error) => fail(error));
    w.on('exit', () => {
      if (worker === w) fail(new Error('the usage thread stopped'));
    });
    return w;
  };
  return {
    measure(files) {
      clearTimeout(idle);
      worker ??= start();
      worker.ref();
      const id = ++next;
      const answer = new Promise<StoredUse>((resolve, reject) => waiting.set(id, { resolve, reject }));
      worker.postMessage({ id, files });
      return answer;
    },
    async close() {
      clearTimeout(idle);
      const w = worker;
      worker = undefined;
      fail(new Error('the server is closing'));
      await w?.terminate();
    },
  };
}

/** A measurement's answer, with the id of its question. */
type Measured = { id: number } & ThreadOutcome<StoredUse>;

/** On the thread: one measurement per message, answered with its id. */
export function serveMeasurements(): void {
  parentPort!.on('message', (m: { id: number; files: string[] }) => {
    try {
      parentPort!.postMessage({ id: m.id, ok: measureFiles(m.files) } satisfies Measured);
    } catch (error) {
      parentPort!.postMessage({ id: m.id, error: toWire(error) } satisfies Measured);
    }
  });
}

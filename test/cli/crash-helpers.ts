import Database from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

/**
 * What the SIGKILL suites (import-crash, ingest-crash) share: `pcg` children
 * that are all killed when the suite ends, fresh temp folders removed then,
 * and read-only looks into a project's state file between a kill and the
 * next run.
 */
const BIN = fileURLToPath(new URL('../../api/bin.mjs', import.meta.url));
export const GLOBAL = 'crash-suite-global-key-0123456789';

export interface Run {
  child: ChildProcess;
  /** Resolves with the exit code (null when killed by a signal). */
  exit: Promise<number | null>;
  out: () => string;
  err: () => string;
  alive: () => boolean;
  /** SIGKILL (unless it has exited) and wait for the exit. */
  kill: () => Promise<void>;
}

export class Children {
  private readonly children = new Set<ChildProcess>();
  private readonly dirs: string[] = [];

  tempDir(prefix: string): string {
    const d = mkdtempSync(join(tmpdir(), prefix));
    this.dirs.push(d);
    return d;
  }

  pcg(args: string[], env: Record<string, string> = {}): Run {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, PCG_GLOBAL_API_KEY: GLOBAL, PCG_LOG_LEVEL: 'warn', PCG_RATE_LIMIT_BURST: '0', PCG_SOURCES: 'off', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.children.add(child);
    let out = '';
    let err = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    void exit.then(() => this.children.delete(child));
    const alive = () => child.exitCode === null && child.signalCode === null;
    return {
      child,
      exit,
      out: () => out,
      err: () => err,
      alive,
      kill: async () => {
        if (alive()) child.kill('SIGKILL');
        await exit;
      },
    };
  }

  /** Kills every child still running (SIGKILL) and removes every temp folder. */
  async close(): Promise<void> {
    await Promise.all(
      [...this.children].map((c) => {
        if (c.exitCode !== null || c.signalCode !== null) return undefined;
        const exited = new Promise((r) => c.once('exit', r));
        c.kill('SIGKILL');
        return exited;
      }),
    );
    for (const d of this.dirs) rmSync(d, { recursive: true, force: true });
  }
}

/** A `pcg serve` child's base URL, once it says it listens. */
export async function listening(run: Run, ms = 60_000): Promise<string> {
  const until = Date.now() + ms;
  for (;;) {
    const m = /pcg listening on (http:\/\/\S+)/.exec(run.out());
    if (m) return m[1]!;
    if (!run.alive()) throw new Error(`pcg serve exited: ${run.out()}${run.err()}`);
    if (Date.now() > until) throw new Error(`pcg serve not listening after ${ms} ms: ${run.out()}${run.err()}`);
    await sleep(20);
  }
}

/**
 * Runs `query` on a read-only connection to a state file; undefined while the file (or its tables) is not there yet.
 * A child SIGKILLed mid-commit can leave a WAL index that only a connection allowed to write rebuilds (SQLite answers
 * a read-only one "attempt to write a readonly database", seen once in CI): then the query runs on such a
 * connection, which rebuilds the index from the WAL and reads what was committed, as the next pcg run would.
 */
export function readState<T>(file: string, query: (db: Database.Database) => T, readonly = true): T | undefined {
  if (!existsSync(file)) return undefined;
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    return query(db);
  } catch (error) {
    // A file being created or migrated by the child has no tables yet.
    if (/no such table|SQLITE_BUSY|SQLITE_CANTOPEN|database is locked/i.test(String(error))) return undefined;
    if (readonly && /^SQLITE_READONLY/.test(String((error as { code?: unknown }).code))) {
      db?.close();
      db = undefined;
      return readState(file, query, false);
    }
    throw error;
  } finally {
    db?.close();
  }
}

/** The highest offset stored for any source of a state file (-1 when none). */
export function storedOffset(file: string): number {
  return readState(file, (db) => (db.prepare('SELECT max(offset) AS o FROM position').get() as { o: number | null }).o) ?? -1;
}

/** The kept events' keys of a state file, with how many rows the event table has (equal to the keys' count unless an event is doubled). */
export function keptKeys(file: string): { rows: number; keys: Set<string> } {
  return (
    readState(file, (db) => {
      const keys = new Set<string>();
      let rows = 0;
      for (const r of db.prepare('SELECT key FROM event').iterate() as Iterable<{ key: string }>) {
        rows += 1;
        keys.add(r.key);
      }
      return { rows, keys };
    }) ?? { rows: 0, keys: new Set<string>() }
  );
}

/** The document without its data version (how many batches it took) : what two runs over the same events must agree on. */
export const withoutVersion = (d: Record<string, any>) => ({ ...d, source: { ...d.source, data_version: '' } });

/** A JSON request to a running `pcg serve`: its parsed answer, or an error naming the status. */
export async function api(base: string, method: string, path: string, key: string, body?: unknown): Promise<any> {
  const r = await fetch(base + path, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** A tenant named `name`, a writer's key and a project, made with the global key `global`. */
export async function project(base: string, global: string, name: string): Promise<{ key: string; path: string; id: string }> {
  const tenant = await api(base, 'POST', '/api/tenant', global, { name });
  const user = await api(base, 'POST', '/api/user', global, { email: `${name}-${Math.random()}@example.com` });
  await api(base, 'POST', `/api/tenant/${tenant.id}/user`, global, { userId: user.id, permissions: ['read', 'write'] });
  const { key } = await api(base, 'POST', `/api/tenant/${tenant.id}/apikey`, global, { userId: user.id, name });
  const p = await api(base, 'POST', `/api/${tenant.id}/project`, key, { name: 'p' });
  return { key, path: `/api/${tenant.id}/project/${p.id}`, id: p.id };
}

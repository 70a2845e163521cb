import { readdirSync, readFileSync } from 'node:fs';
import type { Config } from './config.js';
import { limitName } from './config.js';
import { registerWireError } from '../engine/error-base.js';
import { OperatorError } from './exit-codes.js';

/**
 * The process's file descriptors, budgeted at start. Every open project store
 * holds DESCRIPTORS_PER_STORE of them and every socket one; past the soft
 * RLIMIT_NOFILE, opening anything fails (EMFILE), and the request that needed
 * it (another tenant's graph) answers 500. So the cap on open stores is checked
 * against the limit: when stores × descriptors + the sockets allowed + what is
 * open already + a margin do not fit, the cap is lowered, with a warning; when
 * not even MIN_OPEN_STORES fit, the server refuses to start and says how far
 * to raise the limit. Lowering is the default rather than refusing: a smaller
 * cap costs reopening files, while EMFILE costs answers.
 */

/**
 * Measured (test/api/descriptors.test.ts): a store's connection holds the file, its `-wal` and its `-shm`
 * (3). A build thread's connection to a file open here holds two more while it is open (SQLite shares the
 * `-shm` within a process), and once it is closed one of them stays: SQLite cannot close a descriptor of a
 * file another connection of the process holds locks on (closing it would drop their POSIX locks), so it
 * keeps it until the last connection to the file closes. A store whose graph was built on a thread thus holds
 * 4: 256 stores served graphs held 1,109 descriptors in all (three, counting only the store's own files).
 */
export const DESCRIPTORS_PER_STORE = 4;
/** Stores a document build thread keeps open (engine/projects/state-files.ts), each a connection of 3 descriptors at most. */
export const BUILD_THREAD_STORES = 16;
const CONNECTION_DESCRIPTORS = 3;
/** The smallest cap on open stores the configuration allows (PCG_MAX_OPEN_STORES). */
export const MIN_OPEN_STORES = 8;
/**
 * Descriptors for what is neither a store nor a client socket: worker threads' pipes and event descriptors,
 * a dataset file being read, SQLite's temporary files, a retraction thread's store, the catalog of the
 * source thread.
 */
export const DESCRIPTOR_MARGIN = 64;

export interface FileLimit {
  soft: number;
  hard: number;
}

/**
 * `Max open files` of /proc/self/limits (Infinity for unlimited); undefined where there is no such file (not
 * Linux). Read after Node raised its soft limit to the hard one (it does as it starts): the limit it runs with.
 */
export function readFileLimit(read: () => string = () => readFileSync('/proc/self/limits', 'utf8')): FileLimit | undefined {
  let text: string;
  try {
    text = read();
  } catch {
    return undefined;
  }
  const m = /^Max open files\s+(\S+)\s+(\S+)/m.exec(text);
  if (!m) return undefined;
  const value = (s: string) => (s === 'unlimited' ? Infinity : Number(s));
  return { soft: value(m[1]!), hard: value(m[2]!) };
}

/** Descriptors open now (/proc/self/fd), or undefined where that cannot be read. */
export function openDescriptors(): number | undefined {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return undefined;
  }
}

export interface StoreBudget {
  /** The cap to use: the configured one, or lower. */
  maxOpenStores: number;
  /** Descriptors the configured cap would need at most. */
  needed: number;
  /** Set when the cap was lowered: what to log. */
  warning?: string;
}

export class DescriptorLimitError extends OperatorError<'descriptor_limit'> {
  override name = 'DescriptorLimitError';
  constructor(message: string) {
    super('descriptor_limit', message);
  }
}
registerWireError('DescriptorLimitError', DescriptorLimitError, (w) => new DescriptorLimitError(w.message));

/**
 * The open-store cap that fits the descriptor limit. Stores are held by the request thread's registry and,
 * when stream sources run in this process, by the source thread's (each up to the cap), and by the build
 * threads (BUILD_THREAD_STORES each); sockets up to PCG_MAX_CONNECTIONS.
 */
export function storeBudget(
  config: Pick<Config, 'maxOpenStores' | 'maxConnections' | 'buildThreads' | 'sources'>,
  limit: FileLimit | undefined,
  inUse: number,
): StoreBudget {
  const registries = config.sources ? 2 : 1;
  const fixed = inUse + DESCRIPTOR_MARGIN + config.maxConnections + CONNECTION_DESCRIPTORS * BUILD_THREAD_STORES * config.buildThreads;
  const needed = fixed + DESCRIPTORS_PER_STORE * registries * config.maxOpenStores;
  if (!limit || !Number.isFinite(limit.soft) || needed <= limit.soft) return { maxOpenStores: config.maxOpenStores, needed };
  const fit = Math.floor((limit.soft - fixed) / (DESCRIPTORS_PER_STORE * registries));
  // Node raises its soft limit to the hard one as it starts: the hard limit is the one to raise, unless a soft one was set below it since.
  const raise = `raise the limit on open files (ulimit -n, systemd LimitNOFILE=) to at least ${needed}${limit.hard >= needed ? ` (the hard limit, ${limit.hard}, allows it)` : ''}`;
  if (fit < MIN_OPEN_STORES) {
    throw new DescriptorLimitError(
      `the limit on open files (${limit.soft}) leaves room for ${Math.max(0, fit)} project stores beside ${config.maxConnections} connections (${limitName('maxConnections')}) and ${inUse} descriptors open already; at least ${MIN_OPEN_STORES} are needed: ${raise}, or lower ${limitName('maxConnections')}`,
    );
  }
  return {
    maxOpenStores: fit,
    needed,
    warning: `the limit on open files (${limit.soft}) holds ${fit} open project stores, not ${config.maxOpenStores} (${limitName('maxOpenStores')}; ${DESCRIPTORS_PER_STORE} descriptors each${registries > 1 ? ', in the request and source threads' : ''}, beside ${config.maxConnections} connections): using ${fit}; ${raise}`,
  };
}

import { parentPort, Worker, workerData } from 'node:worker_threads';
import { INGEST_HEAP } from '../../engine/heap.js';
import { PRIVATE_UMASK } from '../file-modes.js';
import { processIo, type Io } from './command.js';
import { main } from './main.js';

/**
 * The commands the binary runs on a worker thread: those that write a stream
 * of events into a store (`pcg import`, `pcg worker`). Nothing else differs
 * there: the thread runs the same `main`, and what it writes comes back to the
 * binary's streams in order. The reason is the heap: a thread can be given a
 * larger young generation (engine/heap.ts), a process only by a node flag. A
 * SIGKILL of the process still ends everything at once, which a child process
 * re-executed with the flag would not. `pcg graph FILE` stays on the main
 * thread: it stores nothing, and measured no faster there (BPIC 2012 2.56 s
 * against 2.45 s, 1M NDJSON events 7.3 s either way).
 *
 * Signals reach only the main thread. A command that stops on SIGINT or
 * SIGTERM (`signals`) has each relayed once and emitted on the thread's
 * `process`, where its own handler waits; for the others the process's
 * default stays (a ^C ends it at once, as before).
 */
export const THREADED_COMMANDS: ReadonlyMap<string, { signals: boolean; keepsData: boolean }> = new Map([
  ['import', { signals: false, keepsData: true }],
  ['worker', { signals: true, keepsData: true }],
]);

const RELAYED = ['SIGINT', 'SIGTERM'] as const;

type FromCommand = { type: 'out' | 'err'; text: string } | { type: 'exit'; code: number };
type ToCommand = { type: 'signal'; signal: (typeof RELAYED)[number] };

interface CommandData {
  argv: string[];
  /** The binary's stderr, when it is a terminal (a progress bar may be drawn): its width. */
  terminal?: { columns?: number };
}

/** Runs `pcg argv` on a thread; resolves with its exit code (a crash of the thread rejects, as it would have thrown). */
export function runOnThread(argv: string[], io: Io = processIo): Promise<number> {
  const terminal = io.terminal?.isTTY ? { columns: io.terminal.columns } : undefined;
  // The umask is the process's, set here: a thread may not (Command.keepsData).
  if (THREADED_COMMANDS.get(argv[0] ?? '')?.keepsData) process.umask(PRIVATE_UMASK);
  const worker = new Worker(new URL('./command-thread.mjs', import.meta.url), {
    workerData: { argv, terminal } satisfies CommandData,
    resourceLimits: INGEST_HEAP,
  });
  const relays = THREADED_COMMANDS.get(argv[0] ?? '')?.signals
    ? RELAYED.map((signal) => {
        const relay = () => worker.postMessage({ type: 'signal', signal } satisfies ToCommand);
        // Once, as the commands listen: a second ^C finds the default handler and ends the process.
        process.once(signal, relay);
        return () => process.off(signal, relay);
      })
    : [];
  worker.once('exit', () => relays.forEach((off) => off()));
  return new Promise((resolve, reject) => {
    let code: number | undefined;
    worker.on('message', (m: FromCommand) => {
      if (m.type === 'exit') code = m.code;
      else if (m.type === 'out') io.out(m.text);
      else io.err(m.text);
    });
    worker.on('error', reject);
    // Messages are delivered before 'exit': the code is known by then, unless the thread ended without saying it.
    worker.on('exit', (status) => (code === undefined ? reject(new Error(`the command's thread exited with code ${status}`)) : resolve(code)));
  });
}

/** The thread's side (command-thread.mjs calls it). */
export async function runCommandThread(): Promise<void> {
  const { argv, terminal } = workerData as CommandData;
  const port = parentPort!;
  const say = (m: FromCommand) => port.postMessage(m);
  port.on('message', (m: ToCommand) => process.emit(m.signal));
  // The port must not keep the thread alive once the command is done.
  port.unref();
  const io: Io = {
    out: (text) => say({ type: 'out', text }),
    err: (text) => say({ type: 'err', text }),
    ...(terminal ? { terminal: { isTTY: true, columns: terminal.columns, write: (text: string) => say({ type: 'err', text }) } } : {}),
  };
  say({ type: 'exit', code: await main(argv, io) });
}

import { readdirSync, readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import type { IngestTarget } from '../../engine/projects/index.js';
import { oneLine } from '../../engine/render/safe-text.js';
import { isPrepared } from '../../engine/store/prepare.js';
import type { Io, Terminal } from './command.js';

export interface Progress {
  /** Wraps the import's target so every batch applied counts its events (and redraws). */
  target<T extends IngestTarget>(target: T): IngestTarget;
  /** Says `n` records of the file are read in all (a reading that applies no batches to a target). */
  read(n: number): void;
  /** Redraws now (the timer does this every 200 ms). */
  tick(): void;
  /** Stops and clears the bar. */
  done(): void;
}

const noProgress: Progress = { target: (t) => t, read: () => {}, tick: () => {}, done: () => {} };

/**
 * How far the process has read `file`: the largest file position among its
 * open descriptors on it (Linux /proc; undefined elsewhere, or when no
 * descriptor is open on it right now).
 */
export function bytesRead(file: string): number | undefined {
  let fds: string[];
  try {
    fds = readdirSync('/proc/self/fd');
  } catch {
    return undefined;
  }
  let most: number | undefined;
  for (const fd of fds) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) !== file) continue;
      const pos = /^pos:\s+(\d+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'));
      if (pos) most = Math.max(most ?? 0, Number(pos[1]));
    } catch {
      // The descriptor closed between the listing and the read.
    }
  }
  return most;
}

const BAR_WIDTH = 20;
const mb = (bytes: number, unit = true) => `${(bytes / 1e6).toFixed(1)}${unit ? ' MB' : ''}`;

/**
 * A progress bar for reading a log file: bytes read of the file (where the
 * platform tells) and events applied, on a terminal only. When `stream` is no
 * TTY (a pipe, a file, a test) it draws nothing at all. The first draw waits
 * `delayMs` (1 s), so short imports never show a bar.
 */
export function fileProgress(name: string, file: string, stream: Terminal, options: { delayMs?: number; intervalMs?: number } = {}): Progress {
  if (!stream.isTTY) return noProgress;
  let total = 0;
  let real = file;
  try {
    total = statSync(file).size;
    real = realpathSync(file);
  } catch {
    // A missing file fails in the reader, with its own message.
  }
  const started = Date.now();
  const delay = options.delayMs ?? 1000;
  let events = 0;
  let read = 0;
  let drawn = false;
  let done = false;
  let last = 0;
  const draw = () => {
    last = Date.now();
    if (done) return;
    if (last - started < delay) return;
    const pos = bytesRead(real);
    if (pos !== undefined) read = pos;
    const width = Math.max(20, Math.min(stream.columns || 80, 120) - 1);
    // The file's name is data: its controls are shown escaped, the bar's own sequences are the only ones written.
    const head = `${name}: ${oneLine(basename(file))} `;
    const tail = total > 0 && read > 0 ? ` ${Math.min(100, Math.floor((100 * read) / total))}% ${mb(Math.min(read, total), false)}/${mb(total)} ${events} events` : ` ${events} events`;
    const room = BAR_WIDTH + 2 + head.length + tail.length <= width ? BAR_WIDTH : 0;
    const bar = total > 0 && read > 0 && room ? `[${'#'.repeat(Math.round((room * Math.min(read, total)) / total)).padEnd(room, '-')}]` : '';
    stream.write(`\r\x1b[K${`${head}${bar}${tail}`.slice(0, width)}`);
    drawn = true;
  };
  const timer = setInterval(draw, options.intervalMs ?? 200);
  timer.unref();
  return {
    target(target) {
      return {
        async apply(batch, position) {
          const result = await target.apply(batch, position);
          events += isPrepared(batch) ? batch.records : batch.records.length;
          if (Date.now() - last >= 200) draw();
          return result;
        },
        setMeta: (key, value) => target.setMeta(key, value),
        totals: () => target.totals(),
        limits: target.limits,
      };
    },
    read(n) {
      events = n;
      if (Date.now() - last >= 200) draw();
    },
    tick: draw,
    done() {
      clearInterval(timer);
      if (drawn) stream.write('\r\x1b[K');
      drawn = false;
      done = true;
    },
  };
}

/** The bar `pcg import` and `pcg graph FILE` draw: on the Io's terminal (the process's stderr) when it is one, never for a test's Io. */
export function importProgress(name: string, file: string, io: Io): Progress {
  return io.terminal ? fileProgress(name, file, io.terminal) : noProgress;
}

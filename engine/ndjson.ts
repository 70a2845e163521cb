import { registerWireError } from './error-base.js';
import { EngineError } from './errors.js';
import { withinBytes } from './event.js';
import type { Rejection } from './store/types.js';

/** What a run of NDJSON lines holds: records with their line, and the lines that were not JSON. */
export interface NdjsonPart {
  records: unknown[];
  locations: string[];
  rejected: Rejection[];
}

/** A line longer than the reader's `maxLineBytes`: thrown as soon as it is known, before the line is read whole. */
export class LineTooLong extends EngineError {
  override name = 'LineTooLong';
  constructor(
    /** The line's number (from 1). */
    readonly line: number,
    readonly maxBytes: number,
  ) {
    super('line_too_long', `line ${line} is longer than ${maxBytes} bytes`);
  }
  override wireFields() {
    return { line: this.line, maxBytes: this.maxBytes };
  }
}
registerWireError('LineTooLong', LineTooLong, (w) => new LineTooLong(Number(w.fields?.line), Number(w.fields?.maxBytes)));

/**
 * The one NDJSON line reader, for files (fed chunk by chunk) and HTTP bodies
 * (fed whole): each line one record, numbered from 1 across the whole input,
 * blank lines skipped, a line that is not JSON rejected with its number and
 * reason (and its first 10,000 characters as payload). `push` takes text that
 * may end mid-line and returns what its complete lines hold; `end` the rest.
 *
 * Linear in the input whatever its lines: the unfinished line is kept as the
 * list of its pieces and joined once, when its end comes, and each chunk is
 * scanned once for line ends. (Joining it to every chunk and splitting again
 * made a 640 MiB line, 652 KB gzipped, cost the square of its chunks.) With
 * `maxLineBytes`, a longer line throws LineTooLong as soon as its pieces pass
 * the bound, so it is never held whole either.
 */
export class NdjsonReader {
  private pieces: string[] = [];
  /** UTF-16 units of the pieces: a line of more units than maxLineBytes has more bytes too. */
  private held = 0;
  private line = 0;

  constructor(private readonly maxLineBytes = Number.POSITIVE_INFINITY) {}

  push(text: string): NdjsonPart {
    const part = emptyPart();
    let nl = text.indexOf('\n');
    if (nl < 0) {
      this.hold(text);
      return part;
    }
    this.take(this.pieces.length ? this.joined(text.slice(0, nl)) : text.slice(0, nl), part);
    let start = nl + 1;
    while ((nl = text.indexOf('\n', start)) >= 0) {
      // A blank line costs its number only (2 GiB of line ends was 150 s when each became a string).
      if (nl === start) this.line += 1;
      else this.take(text.slice(start, nl), part);
      start = nl + 1;
    }
    if (start < text.length) this.hold(text.slice(start));
    return part;
  }

  end(): NdjsonPart {
    const part = emptyPart();
    if (this.pieces.length) this.take(this.joined(''), part);
    return part;
  }

  private hold(piece: string): void {
    if (!piece) return;
    this.pieces.push(piece);
    this.held += piece.length;
    if (this.held > this.maxLineBytes) throw new LineTooLong(this.line + 1, this.maxLineBytes);
  }

  private joined(last: string): string {
    const line = this.pieces.join('') + last;
    this.pieces = [];
    this.held = 0;
    return line;
  }

  private take(text: string, part: NdjsonPart): void {
    this.line += 1;
    if (!withinBytes(text, this.maxLineBytes)) throw new LineTooLong(this.line, this.maxLineBytes);
    const t = text.trim();
    if (!t) return;
    try {
      part.records.push(JSON.parse(t));
      part.locations.push(`line ${this.line}`);
    } catch (error) {
      part.rejected.push({ location: `line ${this.line}`, reason: `not JSON: ${(error as Error).message}`, payload: t.slice(0, 10_000) });
    }
  }
}

const emptyPart = (): NdjsonPart => ({ records: [], locations: [], rejected: [] });

/** A whole NDJSON text at once. */
export function readNdjson(text: string): NdjsonPart {
  const reader = new NdjsonReader();
  const head = reader.push(text);
  const tail = reader.end();
  return { records: [...head.records, ...tail.records], locations: [...head.locations, ...tail.locations], rejected: [...head.rejected, ...tail.rejected] };
}

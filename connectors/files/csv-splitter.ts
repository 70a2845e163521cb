import { registerWireError } from '../../engine/error-base.js';
import { FileImportError } from './errors.js';
import { withinBytes } from '../../engine/event.js';

/**
 * RFC 4180 records from text chunks: quoted fields may hold the delimiter,
 * doubled quotes and newlines; CRLF and LF both end a record. Lenient where
 * real exports are sloppy (a quote inside an unquoted field is kept as text).
 */
export type RowHandler = (fields: string[], line: number) => void;

/** A record longer than the splitter's bound (its first line's number). */
export class RecordTooLong extends FileImportError {
  override name = 'RecordTooLong';
  constructor(
    readonly line: number,
    readonly maxBytes: number,
  ) {
    // The CSV reader catches it and names the setting; content_too_large is what it becomes there.
    super('content_too_large', `the record at line ${line} is longer than ${maxBytes} bytes`);
  }
  override wireFields() {
    return { line: this.line, maxBytes: this.maxBytes };
  }
}
registerWireError('RecordTooLong', RecordTooLong, (w) => new RecordTooLong(Number(w.fields?.line), Number(w.fields?.maxBytes)));

export class CsvSplitter {
  private buf = '';
  private pos = 0;
  /** Line number of the record starting at `pos`. */
  private line = 1;
  private readonly delim: string;

  /**
   * `maxRecordBytes`: a record (its quoted line ends included) may have at most this many UTF-8 bytes; a longer one
   * throws RecordTooLong. The unfinished record is held and scanned again with each chunk, so this bound is what keeps
   * a record that never ends (a line of hundreds of MB, a stray quote at the top) from costing the square of its size.
   */
  constructor(
    delimiter: string,
    private readonly onRow: RowHandler,
    private readonly maxRecordBytes = Number.POSITIVE_INFINITY,
  ) {
    this.delim = delimiter;
  }

  private quoteAt = -1;

  write(chunk: string): void {
    this.buf = this.pos > 0 ? this.buf.slice(this.pos) + chunk : this.buf + chunk;
    this.pos = 0;
    this.quoteAt = -1;
    this.run(false);
    // What is left is one unfinished record: more UTF-16 units than the bound is more bytes too.
    if (this.buf.length - this.pos > this.maxRecordBytes) throw new RecordTooLong(this.line, this.maxRecordBytes);
  }

  /** Returns the line of an unterminated quoted field at the end, if any (its text is in `rest`). */
  end(): { line: number; rest: string } | undefined {
    this.run(true);
    if (this.pos < this.buf.length) {
      const rest = this.buf.slice(this.pos);
      this.pos = this.buf.length;
      return { line: this.line, rest };
    }
    return undefined;
  }

  /** The text after the last complete record, not read as a record (its line and text), and forgotten: a cut-off end. */
  drop(): { line: number; rest: string } | undefined {
    const rest = this.buf.slice(this.pos);
    this.buf = '';
    this.pos = 0;
    return rest.trim() === '' ? undefined : { line: this.line, rest };
  }

  private run(final: boolean): void {
    const buf = this.buf;
    for (;;) {
      if (this.pos >= buf.length) return;
      let nl = buf.indexOf('\n', this.pos);
      if (nl < 0) {
        if (!final) return;
        nl = buf.length;
      }
      // The next quote is searched once and remembered: searching per row would rescan the buffer.
      if (this.quoteAt < this.pos) {
        const q = buf.indexOf('"', this.pos);
        this.quoteAt = q < 0 ? Infinity : q;
      }
      const quote = this.quoteAt;
      if (quote > nl) {
        let end = nl;
        if (end > this.pos && buf.charCodeAt(end - 1) === 13) end -= 1;
        if (end - this.pos > this.maxRecordBytes / 3 && !withinBytes(buf.slice(this.pos, end), this.maxRecordBytes)) throw new RecordTooLong(this.line, this.maxRecordBytes);
        const fields = buf.slice(this.pos, end).split(this.delim);
        const line = this.line;
        this.pos = nl + 1;
        this.line += 1;
        this.onRow(fields, line);
        continue;
      }
      const parsed = this.quoted(final);
      if (!parsed) return;
    }
  }

  /** A record with quotes, char by char. Returns false when it continues past the buffer. */
  private quoted(final: boolean): boolean {
    const buf = this.buf;
    const d = this.delim;
    const fields: string[] = [];
    let i = this.pos;
    let lines = 0;
    for (;;) {
      let value = '';
      if (buf[i] === '"') {
        let j = i + 1;
        for (;;) {
          const q = buf.indexOf('"', j);
          if (q < 0 || (q + 1 >= buf.length && !final)) return false;
          value += buf.slice(j, q);
          if (buf[q + 1] === '"') {
            value += '"';
            j = q + 2;
          } else {
            i = q + 1;
            break;
          }
        }
        for (let k = value.indexOf('\n'); k >= 0; k = value.indexOf('\n', k + 1)) lines++;
      }
      // Unquoted text (or what follows a closing quote) up to the delimiter or the end of the line.
      let stop = i;
      while (stop < buf.length && !buf.startsWith(d, stop) && buf[stop] !== '\n') stop++;
      if (stop >= buf.length && !final) return false;
      let text = buf.slice(i, stop);
      if (buf[stop] === '\n' && text.endsWith('\r')) text = text.slice(0, -1);
      fields.push(value + text);
      if (stop < buf.length && buf[stop] !== '\n') {
        i = stop + d.length;
        continue;
      }
      const line = this.line;
      if (stop - this.pos > this.maxRecordBytes / 3 && !withinBytes(buf.slice(this.pos, stop), this.maxRecordBytes)) throw new RecordTooLong(line, this.maxRecordBytes);
      this.line += lines + 1;
      this.pos = stop + 1;
      this.onRow(fields, line);
      return true;
    }
  }
}

/**
 * The delimiter of a CSV text, from its first lines: the candidate found the
 * same (non-zero) number of times on every line, most often; else the one most
 * frequent in the header.
 */
export function sniffDelimiter(head: string): string {
  const lines = head.split(/\r?\n/).filter((l) => l.trim()).slice(0, 20);
  if (lines.length > 1 && !head.endsWith('\n')) lines.pop(); // the last line of a head may be cut
  const candidates = [',', ';', '\t', '|'];
  const count = (line: string, c: string) => line.replace(/"[^"]*"/g, '').split(c).length - 1;
  let best: string | undefined;
  let bestCount = 0;
  for (const c of candidates) {
    const n = count(lines[0] ?? '', c);
    if (n > bestCount && lines.every((l) => count(l, c) === n)) {
      best = c;
      bestCount = n;
    }
  }
  if (best) return best;
  for (const c of candidates) {
    const n = count(lines[0] ?? '', c);
    if (n > bestCount) {
      best = c;
      bestCount = n;
    }
  }
  return best ?? ',';
}

/**
 * Cuts a XES file's content into its header (everything before the first
 * trace) and runs of whole traces, on the bytes alone: no XML is parsed
 * here. Each run says how many `<trace` and `<event` tags it holds, so
 * whoever reads it can number its traces and events as reading the file
 * from the start would (`trace N`, ordinal event ids) without waiting for
 * the runs before it. The counts are a claim on the bytes that a comment or
 * a CDATA section could fool: the reader of a run checks them against what
 * it parsed, and the log is read whole when they differ (xes-parts.ts).
 */
export interface XesSegment {
  bytes: Buffer;
  /** `<trace` and `<event` tags in bytes. */
  traces: number;
  events: number;
  /** The end of the content: the rest of the file after the last cut, closing </log> included. */
  last: boolean;
}

/** Held bytes with no place to cut (a header or one trace this long) make the content not worth cutting. */
const MOST_HELD = 64 << 20;

const TRACE = Buffer.from('<trace');
const EVENT = Buffer.from('<event');
const TRACE_END = Buffer.from('</trace>');

export class XesSegmenter {
  /** The content before the first trace, once found. */
  header: Buffer | undefined;
  /** Set when MOST_HELD bytes came without a place to cut: read the file whole instead. */
  unsplittable = false;
  private chunks: Buffer[] = [];
  private held = 0;

  /** `size`: the bytes a run holds at most (it ends at the last trace end within them), unless one trace is longer. */
  constructor(private readonly size: number) {}

  /** The next bytes of the content; returns the runs now complete. */
  push(chunk: Buffer): XesSegment[] {
    this.chunks.push(chunk);
    this.held += chunk.length;
    return this.held >= this.size ? this.cut(false) : [];
  }

  /** After the last bytes: the runs left, the last one with the file's end. */
  end(): XesSegment[] {
    return this.cut(true);
  }

  private cut(final: boolean): XesSegment[] {
    let data = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    this.chunks = [];
    this.held = 0;
    if (!this.header) {
      const first = tagAt(data, TRACE, 0);
      if (first < 0) {
        // No trace yet: all of it is header so far (a log without traces has no runs).
        if (final) this.header = data;
        else this.keep(data);
        return [];
      }
      this.header = data.subarray(0, first);
      data = data.subarray(first);
    }
    const out: XesSegment[] = [];
    let from = 0;
    while (data.length - from >= this.size) {
      // The last trace end within a run's size; a trace longer than that ends its run where it ends.
      let end = data.lastIndexOf(TRACE_END, from + this.size - TRACE_END.length);
      if (end < from) end = data.indexOf(TRACE_END, from);
      if (end < 0) break;
      out.push(segment(data.subarray(from, end + TRACE_END.length), false));
      from = end + TRACE_END.length;
    }
    const rest = data.subarray(from);
    if (final) out.push(segment(rest, true));
    else if (rest.length > 0) this.keep(rest);
    return out;
  }

  private keep(data: Buffer): void {
    if (data.length > MOST_HELD) this.unsplittable = true;
    this.chunks.push(data);
    this.held += data.length;
  }
}

function segment(bytes: Buffer, last: boolean): XesSegment {
  return { bytes, traces: countTags(bytes, TRACE), events: countTags(bytes, EVENT), last };
}

/** Whether the byte after a tag name's start ends the name (`<trace>`, `<trace/>`, `<trace a=…`, not `<traces`). */
function endsName(byte: number | undefined): boolean {
  return byte === 0x3e || byte === 0x2f || byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

/** Where the first `<name` tag at or after `from` starts, or -1. */
function tagAt(data: Buffer, open: Buffer, from: number): number {
  for (let i = data.indexOf(open, from); i >= 0; i = data.indexOf(open, i + 1)) {
    if (endsName(data[i + open.length])) return i;
  }
  return -1;
}

function countTags(data: Buffer, open: Buffer): number {
  let n = 0;
  for (let i = tagAt(data, open, 0); i >= 0; i = tagAt(data, open, i + 1)) n++;
  return n;
}

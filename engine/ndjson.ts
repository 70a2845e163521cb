import type { Rejection } from './store/types.js';

/** What a run of NDJSON lines holds: records with their line, and the lines that were not JSON. */
export interface NdjsonPart {
  records: unknown[];
  locations: string[];
  rejected: Rejection[];
}

/**
 * The one NDJSON line reader, for files (fed chunk by chunk) and HTTP bodies
 * (fed whole): each line one record, numbered from 1 across the whole input,
 * blank lines skipped, a line that is not JSON rejected with its number and
 * reason (and its first 10,000 characters as payload). `push` takes text that
 * may end mid-line and returns what its complete lines hold; `end` the rest.
 */
export class NdjsonReader {
  private rest = '';
  private line = 0;

  push(text: string): NdjsonPart {
    const lines = (this.rest + text).split('\n');
    this.rest = lines.pop()!;
    return this.read(lines);
  }

  end(): NdjsonPart {
    const last = this.rest;
    this.rest = '';
    return this.read(last ? [last] : []);
  }

  private read(lines: readonly string[]): NdjsonPart {
    const part: NdjsonPart = { records: [], locations: [], rejected: [] };
    for (const text of lines) {
      this.line += 1;
      const t = text.trim();
      if (!t) continue;
      try {
        part.records.push(JSON.parse(t));
        part.locations.push(`line ${this.line}`);
      } catch (error) {
        part.rejected.push({ location: `line ${this.line}`, reason: `not JSON: ${(error as Error).message}`, payload: t.slice(0, 10_000) });
      }
    }
    return part;
  }
}

/** A whole NDJSON text at once. */
export function readNdjson(text: string): NdjsonPart {
  const reader = new NdjsonReader();
  const head = reader.push(text);
  const tail = reader.end();
  return { records: [...head.records, ...tail.records], locations: [...head.locations, ...tail.locations], rejected: [...head.rejected, ...tail.rejected] };
}

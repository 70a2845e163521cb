import { LineTooLong, NdjsonReader, type Batch, type NdjsonPart } from '../../engine/index.js';
// Not through engine/index.js for this constant: the time module is light.
import { NO_CLOCK_TIME } from '../../engine/time.js';
import { Batcher, ordinalId } from './batcher.js';
import { FileImportError } from './errors.js';
import { textChunks, type Input } from './input.js';
import { INPUT_LIMIT_NAMES } from './limits.js';
import type { FileDamage } from './types.js';

/**
 * NDJSON of the wire event format: each line one event, passed on as it is
 * (the store validates it like any stream's event). A line that is not JSON
 * is rejected with its number; blank lines are skipped. A line longer than
 * `maxLineBytes` (PCG_LINE_LIMIT_BYTES) fails the file, as soon as it passes
 * the bound: no event is that large (the event limits bound each part), and
 * holding it whole is what a line of hundreds of MB costs.
 *
 * A file whose first event has no `timestamp` field records only the order of its steps: each event without one is
 * read at NO_CLOCK_TIME, with the ordinal id of its line when it has no eventId (repeats stay apart and ties keep file
 * order); an event that has a time in such a file is rejected, since a clock for some events only orders nothing.
 */
export async function* ndjsonBatches(input: Input, batchSize: number, damaged?: (damage: FileDamage) => void, maxLineBytes = Number.POSITIVE_INFINITY, idPrefix = 'ndjson'): AsyncGenerator<Batch> {
  try {
    yield* readLines(input, batchSize, damaged, maxLineBytes, idPrefix);
  } catch (error) {
    if (!(error instanceof LineTooLong)) throw error;
    throw new FileImportError('content_too_large', `limit ${INPUT_LIMIT_NAMES.lineBytes}: a line may have at most ${error.maxBytes} bytes (line ${error.line} has more)`);
  }
}

async function* readLines(input: Input, batchSize: number, damaged: ((damage: FileDamage) => void) | undefined, maxLineBytes: number, idPrefix: string): AsyncGenerator<Batch> {
  const batcher = new Batcher(batchSize);
  // The line reader HTTP bodies use too; rejections keep their place among the records by line number.
  const reader = new NdjsonReader(maxLineBytes);
  // Decided by the first event: whether the file records times at all.
  let untimed: boolean | undefined;
  const take = (part: NdjsonPart) => {
    const lineOf = (location: string) => Number(location.slice(5));
    let r = 0;
    part.records.forEach((value, i) => {
      while (r < part.rejected.length && lineOf(part.rejected[r]!.location) < lineOf(part.locations[i]!)) {
        const x = part.rejected[r++]!;
        batcher.reject(x.location, x.reason, x.payload);
      }
      const location = part.locations[i]!;
      const event = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
      untimed ??= event !== undefined && !('timestamp' in event);
      if (!untimed || !event) return batcher.record(value, location);
      if ('timestamp' in event) return batcher.reject(location, 'timestamp: a time on an event of a log whose first event has none (read as order only)', JSON.stringify(value));
      batcher.record({ ...event, timestamp: NO_CLOCK_TIME, eventId: event.eventId ?? ordinalId(idPrefix, lineOf(location)) }, location);
    });
    for (; r < part.rejected.length; r++) batcher.reject(part.rejected[r]!.location, part.rejected[r]!.reason, part.rejected[r]!.payload);
  };
  for await (const text of textChunks(input)) {
    take(reader.push(text));
    yield* batcher.take();
  }
  // The rest after the last line end: a line that is not JSON there was cut off.
  const tail = reader.end();
  take(tail);
  if (input.truncated) {
    batcher.reject('end of file', 'the compressed file ends early (truncated .gz)', '');
    damaged?.({ location: 'end of file', reason: 'the compressed file ends early (truncated .gz)' });
  }
  const cut = tail.rejected[0];
  if (cut) damaged?.({ location: cut.location, reason: `the last line is cut off (no line end): ${cut.reason}` });
  yield* batcher.flush();
}

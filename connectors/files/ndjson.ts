import type { Batch } from '../../engine/index.js';
import { Batcher } from './batcher.js';
import { textChunks, type Input } from './input.js';

/**
 * NDJSON of the wire event format: each line one event, passed on as it is
 * (the store validates it like any stream's event). A line that is not JSON
 * is rejected with its number; blank lines are skipped.
 */
export async function* ndjsonBatches(input: Input, batchSize: number): AsyncGenerator<Batch> {
  const batcher = new Batcher(batchSize);
  let rest = '';
  let line = 0;
  const take = (text: string) => {
    line += 1;
    const t = text.trim();
    if (!t) return;
    let value: unknown;
    try {
      value = JSON.parse(t);
    } catch (error) {
      batcher.reject(`line ${line}`, `not JSON: ${(error as Error).message}`, t.slice(0, 10_000));
      return;
    }
    batcher.record(value, `line ${line}`);
  };
  for await (const text of textChunks(input)) {
    const lines = (rest + text).split('\n');
    rest = lines.pop()!;
    for (const l of lines) take(l);
    yield* batcher.take();
  }
  if (rest) take(rest);
  if (input.truncated) batcher.reject('end of file', 'the compressed file ends early (truncated .gz)', '');
  yield* batcher.flush();
}

import type { ResourceLimits } from 'node:worker_threads';

/**
 * The heap of a thread on the store's write path (`pcg import`'s and
 * `pcg worker`'s command thread, a log's reader, `pcg serve`'s sources
 * thread; the Kafka consumer thread takes half of it, see
 * connectors/kafka/consumer-thread.ts). Each batch makes tens of MB of short-lived
 * objects (parsed records, events, folds' scratch); with V8's default young
 * generation (three 16 MB semi-spaces' worth) a good part of them survive a
 * scavenge or two and are copied, or promoted and collected again by the old
 * generation's marking. 192 MB lets a batch's garbage die young. Measured on
 * `pcg import` of 1M events (measured with test/bench/ingest.ts): about 15 % less wall time, for
 * about 100 MB more RSS; 96 MB gained half of that, 384 MB nothing more.
 * A process takes this only as a command-line flag (`--max-semi-space-size`),
 * a worker thread takes it as a resource limit, so the work runs on threads.
 * The XES part threads of `pcg graph FILE` keep V8's default: their runs are
 * sized to die young in it, and the larger heap only added RSS there.
 */
export const INGEST_HEAP: ResourceLimits = Object.freeze({ maxYoungGenerationSizeMb: 192 });

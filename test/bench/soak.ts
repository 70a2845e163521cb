/**
 * Soak (issue 14): `pcg serve` in a child process under N minutes of mixed
 * load from several tenants at once, one of them sending pathological input.
 * What must stay flat: the server's RSS, its open file descriptors, and the
 * well-behaved tenants' p99 latency of reads and ingests.
 *
 *   node --import tsx test/bench/soak.ts [--minutes 10] [--sample-seconds 10] [--pathological on|off] [--stream-cases 10000000]
 *     [--heap-snapshot-at 3,9]   (V8 heap snapshots of the server at those minutes, into a pcg-soak-heap-* temp dir that is kept)
 *
 * The run lives in ./soak/, a file a concern: options.ts (the command line,
 * the lowered limits), server.ts (the child `pcg serve`), traffic.ts (every
 * request, timed and counted), tenants.ts (set-up and the upload files),
 * well-behaved.ts and pathological.ts (the tenants' clients), sampler.ts
 * (RSS, descriptors and /metrics every few seconds), report.ts (tables,
 * flatness checks, verdict) and main.ts (the run in order). This file stays
 * the entry so that `make soak` and the commands in BENCHMARKS.md keep working.
 * Exit code 1 when any response was a 5xx, a well-behaved request failed, or
 * the server died or did not stop cleanly on SIGTERM.
 */
import './soak/main.js';

import { fuzzFormats } from './harness.js';

/** The file door for logs with one case notion: CSV, NDJSON and XES, damaged (harness.ts). */
fuzzFormats('case logs', ['csv', 'ndjson', 'xes']);

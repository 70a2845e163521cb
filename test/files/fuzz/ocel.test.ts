import { fuzzFormats } from './harness.js';

/** The file door for object-centric logs: OCEL 2.0 JSON, XML and SQLite, OCEL 1.0 JSON and XML, damaged (harness.ts). */
fuzzFormats('object-centric logs', ['ocel2-json', 'ocel2-xml', 'ocel2-sqlite', 'ocel1-json', 'ocel1-xml']);

/** The process context graph document: its shape, its builder, its checks. */
export type * from './types.js';
export { buildDocument, type BuildOptions } from './builder.js';
export { documentJsonSchema, graphDocumentSchema, validateDocument, SCHEMA_NAME, SCHEMA_VERSION, type DocumentProblem } from './schema.js';
export { workingSnapshot } from './working.js';
export { EVIDENCE_LEVELS } from './evidence.js';
export { nodeIds } from './graph.js';

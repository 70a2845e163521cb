/**
 * The project service: what the API, a worker, an agent server and a page all
 * need, free of any framework. Open project stores and the one ingest path
 * (registry), served graph documents by version and scope (graphs), scoped
 * views (scope), block analytics (blocks) and other reads of every case (case-reads).
 */
export { DEFAULT_MAX_OPEN, PROJECT_DELETED, ProjectRegistry, type ApplyObserver, type IngestTarget, type RegistryOptions, type SourceRetractor } from './registry.js';
export { buildInProcess, builtDocument, documentText, Graphs, type BuildSource, type BuiltDocument, type DocumentBuilder, type GraphVersionStore, type KeptDocument, type ServedGraph } from './graphs.js';
export { casesOf, inScope, scopedCases, scopedSnapshot, scopeSchema, type Scope } from './scope.js';
export { blockSpecSchema, runBlock, type BlockSpec } from './blocks.js';
export { JsonText, stringifyWithText } from './json-text.js';
export { answerCases, type CasePageAnswer, type CasePageQuery, type CaseQuery, type LiveQuery } from './case-queries.js';
export { CaseReads, readCases, readCasesInProcess, type CaseAnswer, type CaseReader, type CaseSource } from './case-reads.js';
export { mergedState, storeState, type ProjectState } from './state.js';
export { StateFiles } from './state-files.js';
export { emptySnapshot, mergeSnapshots, type MergePart } from './merge.js';
export { prunePass, type PassOptions, type PassResult, type RetentionPolicy, type StoreRef } from './retention.js';
export { liveState, type LiveActivity, type LiveState } from './live.js';

/** The engine's public surface: events in, counted state out. No framework imports here. */
export { EngineError, engineErrorCodes, type EngineErrorCode } from './errors.js';
export { PcgError, fromWire as errorFromWire, toWire as errorToWire, registerWireError, unwrap, type ErrorEntry, type ErrorRegistry, type ThreadOutcome, type WireError } from './error-base.js';
export { checkEvent, cmp, compareEvents, DEFAULT_EVENT_LIMITS, EVENT_LIMIT_NAMES, eventLimits, limitMessage, toWire, UNBOUNDED_EVENT_LIMITS, wireEventSchema, wireEventSchemaFor, type AttributeValue, type Event, type EventCheck, type EventLimits, type ObjectRef, type WireEvent } from './event.js';
export { parseIsoMillis, isoUtc, HOUR_MS, NO_CLOCK_TIME, daysInMonth, utcFromParts, wallClockReader, zoneOffset } from './time.js';
export { bucketOf, bucketValue, exactQuantile, quantile, RELATIVE_ERROR, sketchCount, type Sketch } from './sketch.js';
export { addTally, edgeKey, emptyTally, END, pairKey, PROFILE_KINDS, profileKey, splitKey, splitProfileKey, START, tallyToJson, variantKey, variantPath, type ActivityTally, type EdgeTally, type PairTally, type ProfileKind, type Tally, type TimeGrain } from './tally.js';
export { contribution, type Trace } from './contribution.js';
export { recompute, recomputeTraces } from './oracle.js';
export { LineTooLong, NdjsonReader, readNdjson, type NdjsonPart } from './ndjson.js';
export { MAX_RAW_BYTES, ProjectStore, type ApplyResult, type Batch, type DeadLetter, type Remapped, type ReplayResult, type ObjectRecord, type ObjectRelation, type Position, type ProjectSnapshot, type Rejection, type StoreOptions } from './store/project-store.js';
export { openSqlite, type Db, type SqliteOptions } from './store/database.js';
export { isPrepared, prepareBatch, type PreparedBatch } from './store/prepare.js';
export { fromPortable, toPortable, type PortableBatch } from './store/portable-batch.js';
export { INGEST_HEAP } from './heap.js';

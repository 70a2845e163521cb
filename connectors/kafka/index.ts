/**
 * The Kafka connector: sources declared per project (definition), messages
 * mapped to wire events (mapping), one consumer per source applying each chunk
 * of a partition exactly once into that partition's state (runner), and a
 * supervisor that keeps the running set in line with the catalog.
 */
export { FORMATS, groupIdOf, mappingSchema, publicView, sourceInputSchema, type Mapping, type SourceDefinition, type SourceInput } from './definition.js';
export { compileMapping, type MessageMapper } from './mapping.js';
export { SecretBox } from './secrets.js';
export { clientOf, RETRY, type KafkaLog } from './client.js';
export { CHUNK, FETCH_BYTES, SourceRunner, type PartitionStatus, type RunnerStatus } from './runner.js';
export { chunkBatch, inlinePreparer, PreparerThread, type ChunkMessage, type ChunkPreparer, type Reading } from './preparer.js';
export { SourceSupervisor, type SourceDirectory, type SupervisorOptions } from './supervisor.js';

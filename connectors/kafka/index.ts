/**
 * The Kafka connector: clusters the operator declares and grants (cluster),
 * sources declared per project on them (definition), messages
 * mapped to wire events (mapping), one consumer per source applying each chunk
 * of a partition exactly once into that partition's state (runner, through a
 * state writer), the thread the consumers run on (consumer thread), and a
 * supervisor that keeps the running set in line with the catalog.
 */
export { FORMATS, GROUP_ID_REFUSED, mappingSchema, sourceInputSchema, type Mapping, type SourceDefinition, type SourceInput } from './definition.js';
export {
  clusterInputSchema,
  clusterName,
  configuredClusterSchema,
  CREDENTIALS,
  DEFAULT_CLUSTERS,
  groupIdOf,
  groupSuffixSchema,
  type ClusterConnection,
  type ClusterInput,
  type ConfiguredCluster,
  type Credentials,
} from './cluster.js';
export { brokerSchema, publicTls, saslSchema, tlsSchema, type Sasl, type Tls } from './connection.js';
export { compileMapping, type MessageMapper } from './mapping.js';
export { SecretBox } from './secrets.js';
export { clientOf, RETRY, type KafkaLog } from './client.js';
export { CHUNK, FETCH_BYTES, IN_FLIGHT, SourceRunner } from './runner.js';
export type { PartitionStatus, RunnerDeps, RunnerHandle, RunnerHooks, RunnerStatus } from './runner-contract.js';
export { chunkBatch, type ChunkMessage } from './chunk.js';
export { registryWriter, type StateWriter } from './state-writer.js';
export { ConsumerThread } from './consumer-thread.js';
export { SourceSupervisor, type RunnerFactory, type SourceDirectory, type SupervisorOptions } from './supervisor.js';

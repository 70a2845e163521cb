import type { ApplyResult, EventLimits, Position, PreparedBatch } from '../../engine/index.js';
import type { ProjectRegistry } from '../../engine/projects/index.js';

/**
 * Where a runner's chunks go: the partition states. In one thread it is the
 * project registry itself; a runner on the consumer thread (consumer-thread.ts)
 * talks to the thread that owns the registry through the same interface, so
 * the runner's exactly-once logic is one code for both.
 */
export interface StateWriter {
  /** The event limits the states hold messages to (a chunk is prepared under them). */
  readonly limits: EventLimits;
  /** The last offset of the partition in its state, -1 when none. */
  storedOffset(projectId: string, source: string, partition: number): Promise<number>;
  /**
   * Applies a chunk and its position in one transaction (ProjectRegistry.ingestPart). A position inside the
   * stored range (another writer took the partition) rejects with EngineError `position_overlap`.
   */
  ingest(projectId: string, batch: PreparedBatch, position: Position): Promise<ApplyResult>;
}

/** The registry as a writer, on its own thread. */
export function registryWriter(registry: ProjectRegistry): StateWriter {
  return {
    limits: registry.limits,
    storedOffset: async (projectId, source, partition) => storedOffset(registry, projectId, source, partition),
    ingest: async (projectId, batch, position) => registry.ingestPart(projectId, batch, position),
  };
}

export function storedOffset(registry: ProjectRegistry, projectId: string, source: string, partition: number): number {
  return registry.part(projectId, source, partition).position(source, partition) ?? -1;
}

/**
 * An error as it crosses between the consumer thread and its host: the one wire form (engine/error-base.ts), so an
 * EngineError (a position gap the runner waits out) comes back as one, with its code.
 */
// From the engine's index, which loads the engine's error classes, so they can be made again here.
export { errorFromWire as fromWireError, errorToWire as toWireError, type WireError } from '../../engine/index.js';

import { EngineError, type ApplyResult, type EventLimits, type Position, type PreparedBatch } from '../../engine/index.js';
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

/** An error as it crosses between threads: engine errors keep their code. */
export interface WireError {
  message: string;
  code?: string;
}

export function toWireError(error: unknown): WireError {
  const e = error instanceof Error ? error : new Error(String(error));
  return e instanceof EngineError ? { message: e.message, code: e.code } : { message: e.message };
}

export function fromWireError(w: WireError): Error {
  return w.code ? new EngineError(w.code as EngineError['code'], w.message) : new Error(w.message);
}

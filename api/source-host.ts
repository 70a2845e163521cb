import { hostname } from 'node:os';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { ConsumerThread, SecretBox, SourceSupervisor, type KafkaLog } from '../connectors/kafka/index.js';
import { eventLimits, type EventLimits } from '../engine/index.js';
import { ProjectRegistry, type ApplyObserver } from '../engine/projects/index.js';
import { Catalog } from './catalog/index.js';

export interface SourceHostOptions {
  dataDir: string;
  sourceSecretKey?: string | undefined;
  /** Bounds on one event (PCG_LIMIT_*; default the engine's): a message over one is a dead letter naming the limit. */
  limits?: Partial<EventLimits> | undefined;
  log?: KafkaLog;
  /** Told of every applied chunk (a source thread forwards them to the API's thread, which announces and counts them). */
  observe?: ApplyObserver;
  /** How often the catalog is read for new, paused and deleted sources (default 1 s). */
  pollMs?: number;
  /** Partition states open at once (default the registry's): `pcg serve` hands its own cap, checked against the descriptor limit. */
  maxOpen?: number;
}

export interface SourceHost {
  supervisor: SourceSupervisor;
  /** The partition states it writes (its stores hold every message to the event limits). */
  registry: ProjectRegistry;
  workerId: string;
  close(): Promise<void>;
}

/**
 * Runs every active source of a data directory: its own catalog connection
 * (the source directory) and project registry (the partition states), so it
 * can live on a thread of `pcg serve` or alone in `pcg worker` unchanged.
 */
export function hostSources(options: SourceHostOptions): SourceHost {
  const file = join(options.dataDir, 'catalog.sqlite');
  const catalog = Catalog.open(file, options.sourceSecretKey ? { secrets: new SecretBox(options.sourceSecretKey) } : {});
  const registry = new ProjectRegistry(options.dataDir, {
    limits: eventLimits(options.limits ?? {}),
    ...(options.observe ? { observe: options.observe } : {}),
    ...(options.maxOpen ? { maxOpen: options.maxOpen } : {}),
  });
  const workerId = `${hostname()}:${process.pid}${threadId ? `:${threadId}` : ''}`;
  // Consuming, mapping and validating on a thread of its own while this one writes: the second core for streams.
  const consumers = new ConsumerThread(registry, options.log);
  const supervisor = new SourceSupervisor(catalog.sources, registry, {
    workerId,
    runners: (source, hooks) => consumers.runner(source, hooks),
    ...(options.log ? { log: options.log } : {}),
    ...(options.pollMs ? { pollMs: options.pollMs } : {}),
  });
  supervisor.start();
  return {
    supervisor,
    registry,
    workerId,
    async close() {
      await supervisor.stop();
      await consumers.close();
      registry.close();
      catalog.close();
    },
  };
}

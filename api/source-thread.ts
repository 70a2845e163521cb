import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { INGEST_HEAP, type ApplyResult } from '../engine/index.js';
import type { ApplyObserver, ProjectRegistry } from '../engine/projects/index.js';
import { eventLimitsOf, type Config } from './config.js';

export interface SourceThread {
  /** Re-reads the catalog now (a source was added, changed, paused or deleted). */
  reconcile(): void;
  /** `starting` until the thread has opened the catalog and started its supervisor; `failed` if it died (for readiness). */
  state(): 'starting' | 'running' | 'stopping' | 'stopped' | 'failed';
  close(): Promise<void>;
}

const STOP_MS = 15_000;

/**
 * The data directory's stream sources on a thread of their own: applying a
 * chunk of messages takes tens of milliseconds of CPU that would otherwise
 * hold every tenant's requests. The thread writes partition states with its
 * own connections and says which project changed; this side announces it.
 */
export function startSourceThread(config: Config, registry: ProjectRegistry, logger: Logger, observe?: ApplyObserver): SourceThread {
  const worker = new Worker(new URL('./workers/sources.mjs', import.meta.url), {
    // The request thread's cap on open stores (api/descriptors.ts budgets both registries' stores).
    workerData: { dataDir: config.dataDir, sourceSecretKey: config.sourceSecretKey, limits: { ...eventLimitsOf(config) }, maxOpen: registry.maxOpen },
    resourceLimits: INGEST_HEAP,
  });
  const pending = new Set<string>();
  let flushing = false;
  let state: ReturnType<SourceThread['state']> = 'starting';
  type Message = { type: string; projectId?: string; store?: 'project' | 'partition'; result?: ApplyResult; seconds?: number; level?: string; message?: string; extra?: Record<string, unknown> };
  worker.on('message', (m: Message) => {
    if (m.type === 'started' && state === 'starting') state = 'running';
    if (m.type === 'applied' && m.projectId) {
      if (m.result) observe?.(m.projectId, m.store ?? 'partition', m.result, m.seconds ?? 0);
      if (!m.result?.applied) return;
      // Announced once per turn of the event loop however many chunks arrived.
      pending.add(m.projectId);
      if (!flushing) {
        flushing = true;
        setImmediate(() => {
          flushing = false;
          for (const id of pending) {
            try {
              registry.announce(id);
            } catch (error) {
              logger.warn({ err: error, projectId: id }, 'announcing a source change failed');
            }
          }
          pending.clear();
        });
      }
    } else if (m.type === 'log') {
      const level = m.level === 'error' ? 'error' : m.level === 'warn' ? 'warn' : 'debug';
      logger[level]({ kafka: m.extra }, `source: ${m.message}`);
    }
  });
  worker.on('error', (error) => {
    state = 'failed';
    logger.error({ err: error }, 'the source thread failed');
  });
  worker.on('exit', () => {
    if (state !== 'stopping' && state !== 'stopped') state = 'failed';
  });
  return {
    reconcile: () => worker.postMessage({ type: 'reconcile' }),
    state: () => state,
    async close() {
      if (state !== 'failed') state = 'stopping';
      const stopped = new Promise<void>((resolve) => {
        worker.once('exit', () => resolve());
        worker.on('message', (m: { type: string }) => m.type === 'stopped' && resolve());
      });
      worker.postMessage({ type: 'stop' });
      const timer = setTimeout(() => void worker.terminate(), STOP_MS);
      await stopped;
      clearTimeout(timer);
      await worker.terminate();
      if (state === 'stopping') state = 'stopped';
    },
  };
}

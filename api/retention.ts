import { EngineError } from '../engine/index.js';
import type { PassResult } from '../engine/projects/index.js';
import { retentionDaysOf } from './config.js';
import type { AppContext } from './context.js';
import type { Metrics } from './metrics.js';

/**
 * `pcg serve`'s retention: a pass over every project of the catalog once at
 * start and then every PCG_RETENTION_INTERVAL_S (engine/projects/retention.ts:
 * raw events of cases closed beyond the project's window, dead letters by age
 * and count). Each step of a pass is one short transaction and the event loop
 * turns between steps, so requests are not held up; a pass still running when
 * the next is due is not doubled.
 */
export interface RetentionRunner {
  /** Runs a pass now (or joins the one running); resolves with what it pruned per project. */
  run(): Promise<Map<string, PassResult>>;
  /** Stops between two steps and waits for the pass in flight. */
  close(): Promise<void>;
}

const breathe = () => new Promise<void>((resolve) => setImmediate(resolve));

export function startRetention(ctx: AppContext, metrics: Metrics | undefined): RetentionRunner {
  const stop = new AbortController();
  const { config } = ctx;
  let running: Promise<Map<string, PassResult>> | undefined;
  const pass = async (): Promise<Map<string, PassResult>> => {
    const out = new Map<string, PassResult>();
    for (const { id, retention } of ctx.catalog.projects.retentionSettings()) {
      if (stop.signal.aborted) break;
      const policy = { retentionDays: retentionDaysOf(config, retention), deadLetterDays: config.deadLetterDays, deadLetterMax: config.deadLetterMax };
      try {
        const result = await ctx.states.prune(id, policy, { pause: breathe, signal: stop.signal });
        out.set(id, result);
        metrics?.observePrune(id, result);
        if (result.events > 0 || result.deadLetters > 0) ctx.logger.info({ projectId: id, ...result }, 'retention: pruned');
      } catch (error) {
        // A busy or damaged state file costs its own project this pass, never the others; one being
        // rewritten by another thread (a dataset taken back) is simply left for the next pass.
        if (error instanceof EngineError && error.code === 'state_busy') ctx.logger.debug({ projectId: id }, 'retention: project busy, left for the next pass');
        else ctx.logger.warn({ err: error, projectId: id }, 'retention: the pass of a project failed');
      }
    }
    return out;
  };
  const run = () => (running ??= pass().finally(() => (running = undefined)));
  const first = setImmediate(() => void run());
  const timer = setInterval(() => void run(), config.retentionIntervalS * 1000);
  timer.unref();
  return {
    run,
    async close() {
      stop.abort();
      clearImmediate(first);
      clearInterval(timer);
      await running;
    },
  };
}

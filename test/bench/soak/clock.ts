/**
 * The run's time: every request, sample and minute of the report is placed on
 * one clock that starts with the load (before it, during the set-up, it reads
 * the process's own time, which nothing reports). Pauses end early when the
 * run stops, so no loop outlives it by a sleep.
 */
export class Clock {
  private t0 = 0;

  /** The load starts now: times from here on are milliseconds into the run. */
  start(): void {
    this.t0 = performance.now();
  }

  get startedAt(): number {
    return this.t0;
  }

  now(): number {
    return performance.now() - this.t0;
  }
}

export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const onAbort = () => (clearTimeout(t), resolve());
    const t = setTimeout(() => (signal?.removeEventListener('abort', onAbort), resolve()), ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** ±20 %, so that the tenants' loops do not fall into step with each other. */
export const jitter = (ms: number) => ms * (0.8 + Math.random() * 0.4);

import type { Event } from '../event.js';

/**
 * Recently touched cases' traces, so a stream that keeps appending to open
 * cases does not re-read them from SQLite on every batch. Bounded by the
 * number of events held; the least recently used case goes first.
 * The cache is only a copy: the store clears it whenever a transaction fails.
 */
export class CaseCache {
  private readonly traces = new Map<string, Event[]>();
  private held = 0;

  constructor(private readonly maxEvents: number) {}

  get(caseId: string): Event[] | undefined {
    const trace = this.traces.get(caseId);
    if (trace) {
      this.traces.delete(caseId);
      this.traces.set(caseId, trace);
    }
    return trace;
  }

  set(caseId: string, trace: Event[]): void {
    const old = this.traces.get(caseId);
    if (old) {
      this.held -= old.length;
      this.traces.delete(caseId);
    }
    if (trace.length === 0 || trace.length > this.maxEvents) return;
    this.traces.set(caseId, trace);
    this.held += trace.length;
    for (const [id, t] of this.traces) {
      if (this.held <= this.maxEvents) break;
      this.traces.delete(id);
      this.held -= t.length;
    }
  }

  clear(): void {
    this.traces.clear();
    this.held = 0;
  }
}

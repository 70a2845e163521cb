/**
 * Follows a project's graph stream (`…/graph/stream?include=document`) and
 * hands each new document over; reconnects after a dropped connection with a
 * growing pause, and stops for good when the service says the key no longer
 * has access.
 */
import { ApiError, type Client, type VersionEvent } from './api.js';
import type { LiveAnswer } from './map-live.js';
import type { GraphDocument } from './types.js';

export type LiveState = 'connecting' | 'live' | 'reconnecting' | 'stopped';

export interface LiveHandlers {
  document(doc: GraphDocument): void;
  /** Where the open cases are, read after each new version (at most one read at a time; the newest wins). */
  openCases?(state: LiveAnswer): void;
  state(state: LiveState, message?: string): void;
}

const FATAL = new Set(['invalid_token', 'forbidden', 'not_found']);

export class Live {
  private readonly abort = new AbortController();

  constructor(
    private readonly client: Client,
    private readonly projectId: string,
    private readonly on: LiveHandlers,
  ) {
    void this.run();
  }

  stop(): void {
    this.abort.abort();
  }

  private reading = false;
  private readAgain = false;

  /** Reads the live state once more (a read under way is followed by one more, so the last version is always read). */
  private readOpenCases(): void {
    if (!this.on.openCases || this.abort.signal.aborted) return;
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = true;
    this.client
      .live(this.projectId)
      .then((state) => {
        if (!this.abort.signal.aborted) this.on.openCases?.(state);
      })
      .catch(() => undefined) // the next version reads it again
      .finally(() => {
        this.reading = false;
        if (this.readAgain) {
          this.readAgain = false;
          this.readOpenCases();
        }
      });
  }

  private async run(): Promise<void> {
    const signal = this.abort.signal;
    let pause = 1000;
    let fatal: string | undefined;
    this.on.state('connecting');
    while (!signal.aborted && fatal === undefined) {
      try {
        await this.client.stream(this.projectId, true, signal, (event) => {
          if (event.event === 'version') {
            const payload = JSON.parse(event.data) as VersionEvent;
            pause = 1000;
            this.on.state('live');
            if (payload.document) this.on.document(payload.document);
            this.readOpenCases();
          } else if (event.event === 'error') {
            const e = JSON.parse(event.data) as { error?: string; message?: string };
            if (FATAL.has(e.error ?? '')) fatal = e.message ?? e.error;
            else this.on.state('reconnecting', e.message ?? 'the graph could not be built');
          }
        });
      } catch (error) {
        if (signal.aborted) return;
        if (error instanceof ApiError && (error.status === 401 || error.status === 403 || error.status === 404)) fatal = error.message;
      }
      if (signal.aborted) return;
      if (fatal !== undefined) break;
      this.on.state('reconnecting');
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, pause);
        signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
      });
      pause = Math.min(10_000, pause * 2);
    }
    if (!signal.aborted) this.on.state('stopped', fatal);
  }
}

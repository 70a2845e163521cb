import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Writable } from 'node:stream';

/**
 * Text out to a stream in large chunks, waiting when the stream asks for it,
 * so writing a million events keeps memory flat even into a slow pipe.
 */
export class Sink {
  private parts: string[] = [];
  private size = 0;
  private readonly stream: Writable;
  private readonly owned: boolean;
  private failure: unknown;

  constructor(out: Writable | string) {
    this.owned = typeof out === 'string';
    this.stream = typeof out === 'string' ? createWriteStream(out) : out;
    // Kept for the next write: an unheard 'error' event would crash the process.
    this.stream.on('error', (error) => (this.failure ??= error));
  }

  /** Queues text; returns a promise only when the buffer was flushed into a full stream. */
  write(text: string): Promise<void> | undefined {
    this.parts.push(text);
    this.size += text.length;
    return this.size >= 1 << 16 ? this.flush() : undefined;
  }

  async flush(): Promise<void> {
    if (this.failure) throw this.failure;
    if (!this.size) return;
    const chunk = this.parts.join('');
    this.parts = [];
    this.size = 0;
    // once() rejects if the stream fails while we wait.
    if (!this.stream.write(chunk)) await once(this.stream, 'drain');
  }

  /** Flushes; a file opened here is closed, a stream handed in stays open (the caller owns it). */
  async close(): Promise<void> {
    await this.flush();
    if (!this.owned) return;
    this.stream.end();
    await once(this.stream, 'finish');
    if (this.failure) throw this.failure;
  }
}

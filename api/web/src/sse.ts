/**
 * A Server-Sent Events parser (the WHATWG event-stream format) over text
 * chunks: the page reads the graph stream with fetch, since EventSource
 * cannot send an Authorization header. Pure: no DOM, so tests run it in Node.
 */
export interface SseEvent {
  event: string;
  data: string;
  id: string | undefined;
}

export class SseParser {
  private buffer = '';
  private data: string[] = [];
  private event = '';
  private lastId: string | undefined;
  private started = false;

  /** Feeds a chunk; returns the events it completed. */
  push(chunk: string): SseEvent[] {
    let text = this.buffer + chunk;
    if (!this.started && text.length) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    const out: SseEvent[] = [];
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (c !== '\n' && c !== '\r') continue;
      // A lone \r at the chunk's end may be the first half of \r\n: wait for the next chunk.
      if (c === '\r' && i === text.length - 1) break;
      this.line(text.slice(start, i), out);
      if (c === '\r' && text[i + 1] === '\n') i++;
      start = i + 1;
    }
    this.buffer = text.slice(start);
    return out;
  }

  private line(line: string, out: SseEvent[]): void {
    if (line === '') {
      if (this.data.length) out.push({ event: this.event || 'message', data: this.data.join('\n'), id: this.lastId });
      this.data = [];
      this.event = '';
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id' && !value.includes('\0')) this.lastId = value;
  }
}

import { registerWireError } from '../../engine/error-base.js';
import { FileImportError } from './errors.js';
/**
 * A small streaming XML tokenizer: text in by chunks, open/close/text events
 * out. It keeps only the unfinished tail of the input, so memory does not grow
 * with the document. It checks what a log reader needs to trust the structure
 * (tags nest, attributes are quoted, the document ends) and no more: no DTD
 * validation, no namespaces (a prefix stays part of the name).
 */
export interface XmlHandler {
  /** `attrs` holds name, value, name, value… with entities decoded. */
  open(name: string, attrs: string[], selfClosing: boolean): void;
  close(name: string): void;
  /** Character data and CDATA, entities decoded. Whitespace between tags is passed too. */
  text?(text: string): void;
}

/** Where the XML breaks: the XES reader catches it and marks the damage; one that escapes is the file's refusal. */
export class XmlError extends FileImportError {
  override name = 'XmlError';
  constructor(
    readonly reason: string,
    readonly line: number,
  ) {
    super('xml_malformed', `line ${line}: ${reason}`);
  }
  override wireFields() {
    return { reason: this.reason, line: this.line };
  }
}
registerWireError('XmlError', XmlError, (w) => new XmlError(String(w.fields?.reason), Number(w.fields?.line)));

const entityPattern = /&(#x[0-9a-fA-F]+|#[0-9]+|[A-Za-z]+);/g;
const namedEntities: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

export function decodeEntities(text: string): string {
  if (text.indexOf('&') < 0) return text;
  return text.replace(entityPattern, (whole, body: string) => {
    if (body[0] === '#') {
      const code = body[1] === 'x' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return namedEntities[body] ?? whole;
  });
}

export class XmlTokenizer {
  private buf = '';
  private pos = 0;
  /** Lines before the start of `buf`. */
  private baseLine = 1;
  private readonly stack: string[] = [];
  private sawRoot = false;

  constructor(private readonly handler: XmlHandler) {}

  /** The line the tokenizer has reached (for locating what the handler reports). */
  line(): number {
    let n = this.baseLine;
    for (let i = this.buf.indexOf('\n'); i >= 0 && i < this.pos; i = this.buf.indexOf('\n', i + 1)) n++;
    return n;
  }

  /** Open elements, outermost first. */
  openElements(): readonly string[] {
    return this.stack;
  }

  /** The unconsumed input (at most `max` characters), for dead-letter payloads. */
  pending(max = 1000): string {
    return this.buf.slice(this.pos, this.pos + max);
  }

  private tail: Buffer | undefined;
  private started = false;

  /** Bytes given to writeBytes and held back: the unfinished token (a tag, a run of text) the next chunk continues. */
  held(): number {
    return this.tail?.length ?? 0;
  }

  /** Nothing held back: every byte given so far has been tokenized. */
  idle(): boolean {
    return this.tail === undefined && this.pos >= this.buf.length;
  }

  /**
   * Bytes in: the unconsumed tail is kept as bytes and decoded together with
   * the next chunk, so the tokenizer always scans one flat string (a string
   * built by concatenation is several times slower to scan in V8).
   */
  writeBytes(chunk: Buffer, encoding: 'utf8' | 'latin1' = 'utf8'): void {
    let data = this.tail ? Buffer.concat([this.tail, chunk]) : chunk;
    let cut = data.length;
    if (encoding === 'utf8') {
      // Leave a multi-byte character split by the chunk for the next call.
      let back = 0;
      while (back < 4 && back < data.length && (data[data.length - 1 - back]! & 0xc0) === 0x80) back++;
      const lead = data[data.length - 1 - back];
      if (lead !== undefined && lead >= 0xc0) {
        const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
        if (back + 1 < need) cut = data.length - 1 - back;
      }
    }
    let text = data.toString(encoding, 0, cut);
    if (!this.started && text.charCodeAt(0) === 0xfeff) {
      text = text.slice(1);
      data = data.subarray(3);
      cut -= 3;
    }
    this.started = true;
    this.buf = text;
    this.pos = 0;
    this.run(false);
    const consumed = encoding === 'utf8' ? Buffer.byteLength(this.buf.slice(0, this.pos), 'utf8') : this.pos;
    this.baseLine += countLines(this.buf, 0, this.pos);
    this.tail = consumed < data.length ? Buffer.from(data.subarray(consumed)) : undefined;
    this.buf = this.tail ? this.buf.slice(this.pos) : '';
    this.pos = 0;
  }

  /** Call after the last chunk given to writeBytes. */
  endBytes(encoding: 'utf8' | 'latin1' = 'utf8'): void {
    this.buf = this.tail ? this.tail.toString(encoding) : '';
    this.tail = undefined;
    this.pos = 0;
    this.end();
  }

  write(chunk: string): void {
    if (this.pos > 0) {
      this.baseLine += countLines(this.buf, 0, this.pos);
      this.buf = this.buf.slice(this.pos) + chunk;
      this.pos = 0;
    } else {
      this.buf += chunk;
    }
    this.run(false);
  }

  /** Call after the last chunk: throws an XmlError when the document is incomplete. */
  end(): void {
    this.run(true);
    const rest = this.buf.slice(this.pos);
    if (rest.trim()) {
      if (rest.trimStart().startsWith('<')) throw this.error(`the file ends inside a tag: ${snippet(rest)}`);
      if (this.stack.length) throw this.error(`the file ends inside <${this.stack[this.stack.length - 1]}> (truncated?)`);
      throw this.error(`text after the root element: ${snippet(rest)}`);
    }
    if (this.stack.length) throw this.error(`the file ends inside <${this.stack[this.stack.length - 1]}> (truncated?)`);
    if (!this.sawRoot) throw this.error('no root element');
  }

  private error(message: string): XmlError {
    return new XmlError(message, this.line());
  }

  private run(final: boolean): void {
    const buf = this.buf;
    const h = this.handler;
    const n = buf.length;
    for (;;) {
      let lt = this.pos;
      while (lt < n && buf.charCodeAt(lt) !== 60) lt++;
      if (lt >= n) {
        // Text may continue in the next chunk (an entity could be split): wait unless it is the end.
        if (final && this.pos < buf.length && this.stack.length) this.emitText(buf.slice(this.pos));
        if (final && this.stack.length) this.pos = buf.length;
        return;
      }
      if (lt > this.pos) {
        if (h.text && this.stack.length) this.emitText(buf.slice(this.pos, lt));
        else if (!this.stack.length && buf.slice(this.pos, lt).trim()) {
          this.pos = lt;
          throw this.error(`text outside the root element: ${snippet(buf.slice(this.pos, lt))}`);
        }
        this.pos = lt;
      }
      if (lt + 1 >= buf.length) return;
      const c = buf.charCodeAt(lt + 1);
      if (c === 47 /* / */) {
        let gt = lt + 2;
        while (gt < n && buf.charCodeAt(gt) !== 62) gt++;
        if (gt >= n) return;
        const name = buf.slice(lt + 2, gt).trim();
        const top = this.stack.pop();
        if (top !== name) {
          if (top !== undefined) this.stack.push(top);
          throw this.error(top === undefined ? `closing </${name}> with no open element` : `expected </${top}>, found </${name}>`);
        }
        this.pos = gt + 1;
        h.close(name);
      } else if (c === 33 /* ! */) {
        if (buf.length - lt < 9 && !final) return;
        if (buf.startsWith('<!--', lt)) {
          const end = buf.indexOf('-->', lt + 4);
          if (end < 0) return;
          this.pos = end + 3;
        } else if (buf.startsWith('<![CDATA[', lt)) {
          const end = buf.indexOf(']]>', lt + 9);
          if (end < 0) return;
          if (h.text) h.text(buf.slice(lt + 9, end));
          this.pos = end + 3;
        } else {
          // <!DOCTYPE …> possibly with an internal subset in brackets.
          const open = buf.indexOf('[', lt);
          const gt = buf.indexOf('>', lt);
          if (gt < 0) return;
          let end = gt;
          if (open >= 0 && open < gt) {
            const close = buf.indexOf(']', open);
            if (close < 0) return;
            end = buf.indexOf('>', close);
            if (end < 0) return;
          }
          this.pos = end + 1;
        }
      } else if (c === 63 /* ? */) {
        const end = buf.indexOf('?>', lt + 2);
        if (end < 0) return;
        this.pos = end + 2;
      } else {
        if (!this.openTag(lt)) return;
      }
    }
  }

  /**
   * An open tag read by hand (regular expressions cost twice as much here, and
   * this is the hot loop of reading XES): the name, then `name="value"` pairs
   * up to `>` or `/>`. A `>` inside a quoted value does not end the tag.
   * Returns false when the tag continues past the buffer.
   */
  private openTag(lt: number): boolean {
    const buf = this.buf;
    const n = buf.length;
    let i = lt + 1;
    let c = 0;
    while (i < n && (c = buf.charCodeAt(i)) > 32 && c !== 47 && c !== 62) i++;
    if (i >= n) return false;
    if (i === lt + 1) throw this.error(`malformed tag ${snippet(buf.slice(lt, lt + 80))}`);
    const name = this.intern(lt + 1, i);
    const attrs: string[] = [];
    let selfClosing = false;
    for (;;) {
      while (i < n && buf.charCodeAt(i) <= 32) i++;
      if (i >= n) return false;
      c = buf.charCodeAt(i);
      if (c === 62 /* > */) break;
      if (c === 47 /* / */) {
        if (i + 1 >= n) return false;
        if (buf.charCodeAt(i + 1) !== 62) throw this.error(`malformed tag ${snippet(buf.slice(lt, i + 2))}`);
        selfClosing = true;
        i += 1;
        break;
      }
      let eq = i;
      while (eq < n && (c = buf.charCodeAt(eq)) > 32 && c !== 61 && c !== 62 && c !== 47 && c !== 60 && c !== 34 && c !== 39) eq++;
      if (eq >= n) return false;
      if (eq === i) throw this.error(`malformed attributes in ${snippet(buf.slice(lt, eq + 1))}`);
      const attrName = this.intern(i, eq);
      while (eq < n && buf.charCodeAt(eq) <= 32) eq++;
      if (eq >= n) return false;
      if (buf.charCodeAt(eq) !== 61) throw this.error(`attribute ${attrName} has no value in ${snippet(buf.slice(lt, eq + 1))}`);
      eq++;
      while (eq < n && buf.charCodeAt(eq) <= 32) eq++;
      if (eq >= n) return false;
      const q = buf.charCodeAt(eq);
      if (q !== 34 && q !== 39) throw this.error(`attribute ${attrName} is not quoted in ${snippet(buf.slice(lt, eq + 1))}`);
      // Values are short: a char loop beats indexOf's call overhead here.
      let close = eq + 1;
      while (close < n && buf.charCodeAt(close) !== q) close++;
      if (close >= n) return false;
      const value = buf.slice(eq + 1, close);
      attrs.push(attrName, value.indexOf('&') < 0 ? value : decodeEntities(value));
      i = close + 1;
    }
    if (!this.stack.length && this.sawRoot) throw this.error(`a second root element <${name}>`);
    this.sawRoot = true;
    this.pos = i + 1;
    if (!selfClosing) this.stack.push(name);
    this.handler.open(name, attrs, selfClosing);
    if (selfClosing) this.handler.close(name);
    return true;
  }

  /** Names repeat endlessly in a log (`string`, `key`, `value`): reuse the strings instead of slicing new ones. */
  private readonly names = new Map<number, string>();
  private intern(from: number, to: number): string {
    const buf = this.buf;
    const h = ((to - from) << 16) | ((buf.charCodeAt(from) & 0xff) << 8) | (buf.charCodeAt(to - 1) & 0xff);
    const cand = this.names.get(h);
    if (cand !== undefined && buf.startsWith(cand, from)) return cand;
    const name = buf.slice(from, to);
    if (cand === undefined && this.names.size < 256) this.names.set(h, name);
    return name;
  }

  private emitText(text: string): void {
    this.handler.text?.(decodeEntities(text));
  }
}

function countLines(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf('\n', from); i >= 0 && i < to; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

function snippet(text: string): string {
  const t = text.trim().replace(/\s+/g, ' ');
  return t.length > 80 ? `${t.slice(0, 80)}…` : t;
}

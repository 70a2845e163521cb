import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import { FileImportError } from './errors.js';
import { DEFAULT_INPUT_LIMITS, INPUT_LIMIT_NAMES, RATIO_FLOOR_BYTES, type InputLimits } from './limits.js';

const HEAD_BYTES = 64 * 1024;
const CHUNK_BYTES = 1 << 18;

/**
 * A log file as bytes: gzip is recognised by its magic number, not the name,
 * and undone on the fly. `head` is the start of the (decompressed) content,
 * enough to detect the format without reading the file.
 */
export interface Input {
  readonly path: string;
  readonly gzip: boolean;
  readonly bytes: number;
  /** The first bytes of the content, decompressed. */
  readonly head: Buffer;
  /** sha256 of the file's bytes: the same file always gets the same source id. Empty when not asked for. */
  readonly digest: string;
  /**
   * The content, decompressed, in chunks. Sets `truncated` when a gzip stream ends early. Throws a FileImportError
   * (`content_too_large`) once the content passes the limits, and the signal's reason once it is aborted.
   */
  chunks(): AsyncGenerator<Buffer>;
  truncated: boolean;
  /** Bytes of content the furthest reading of chunks() has given. */
  contentRead: number;
}

export interface InputOptions {
  /** `false` spares a whole extra read when no source id is needed (inspect). */
  digest?: boolean;
  limits?: Pick<InputLimits, 'decompressedBytes' | 'decompressedRatio'>;
  /** Checked at every chunk: a reader on this thread stops within one chunk (256 KB) of an abort. */
  signal?: AbortSignal;
}

export async function openInput(path: string, options: InputOptions = {}): Promise<Input> {
  const limits = options.limits ?? DEFAULT_INPUT_LIMITS;
  const { signal } = options;
  let size: number;
  try {
    const s = await stat(path);
    if (!s.isFile()) throw new Error('not a regular file');
    size = s.size;
  } catch (error) {
    throw new FileImportError('file_not_found', `cannot read ${path}: ${(error as Error).message}`);
  }
  const raw = await readStart(path, HEAD_BYTES);
  const gzip = raw.length >= 2 && raw[0] === 0x1f && raw[1] === 0x8b;
  if (!gzip && size > limits.decompressedBytes) throw tooLarge(limits, size);
  const input: Input = {
    path,
    gzip,
    bytes: size,
    head: raw,
    digest: '',
    truncated: false,
    contentRead: 0,
    async *chunks() {
      signal?.throwIfAborted();
      const file = createReadStream(path, { highWaterMark: CHUNK_BYTES });
      if (!gzip) {
        let content = 0;
        try {
          for await (const chunk of file as AsyncIterable<Buffer>) {
            signal?.throwIfAborted();
            content += chunk.length;
            input.contentRead = Math.max(input.contentRead, content);
            yield chunk;
          }
        } finally {
          file.destroy();
        }
        return;
      }
      // Compressed bytes read so far: the ratio is judged against them (read ahead of the content, so never above it).
      let compressed = 0;
      let content = 0;
      file.on('data', (chunk) => {
        compressed += chunk.length;
      });
      const gunzip = createGunzip({ chunkSize: CHUNK_BYTES });
      file.on('error', (e) => gunzip.destroy(e));
      file.pipe(gunzip);
      try {
        for await (const chunk of gunzip as AsyncIterable<Buffer>) {
          signal?.throwIfAborted();
          content += chunk.length;
          if (content > limits.decompressedBytes) throw tooLarge(limits, content);
          if (limits.decompressedRatio > 0 && content > RATIO_FLOOR_BYTES && content > limits.decompressedRatio * compressed) throw tooDense(limits, content, compressed);
          input.contentRead = Math.max(input.contentRead, content);
          yield chunk;
        }
      } catch (error) {
        if (error instanceof FileImportError || error === signal?.reason) throw error;
        // A cut-off .gz: keep what was decompressed; the reader reports where the content stops.
        if ((error as { code?: string }).code === 'Z_BUF_ERROR' || /unexpected end/i.test(String(error))) input.truncated = true;
        else throw new FileImportError('binary_file', `${path}: gzip data is corrupt: ${(error as Error).message}`);
      } finally {
        file.destroy();
        gunzip.destroy();
      }
    },
  };
  // The head through the same stream, stopped at HEAD_BYTES: decompressing a whole 64 KB prefix at once could make 64 MB.
  if (gzip) {
    const parts: Buffer[] = [];
    let have = 0;
    for await (const chunk of input.chunks()) {
      parts.push(chunk);
      have += chunk.length;
      if (have >= HEAD_BYTES) break;
    }
    (input as { head: Buffer }).head = Buffer.concat(parts).subarray(0, HEAD_BYTES);
    input.truncated = false;
  }
  if (options.digest !== false) (input as { digest: string }).digest = await fileDigest(path);
  return input;
}

const tooLarge = (limits: Pick<InputLimits, 'decompressedBytes'>, has: number) =>
  new FileImportError(
    'content_too_large',
    `limit ${INPUT_LIMIT_NAMES.decompressedBytes}: a file may hold at most ${limits.decompressedBytes} bytes of content, decompressed (this one has ${has} or more)`,
  );

const tooDense = (limits: Pick<InputLimits, 'decompressedRatio'>, content: number, compressed: number) =>
  new FileImportError(
    'content_too_large',
    `limit ${INPUT_LIMIT_NAMES.decompressedRatio}: past ${RATIO_FLOOR_BYTES} bytes of content a gzip file may hold at most ${limits.decompressedRatio} bytes per compressed byte (this one made ${content} bytes of ${compressed}, ${Math.floor(content / compressed)} to 1)`,
  );

async function readStart(path: string, n: number): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buf = Buffer.alloc(n);
    const { bytesRead } = await handle.read(buf, 0, n, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

async function fileDigest(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: CHUNK_BYTES })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Chunks of bytes as text; a multi-byte character split between chunks is kept whole. */
export async function* textChunks(input: Input, encoding = 'utf-8'): AsyncGenerator<string> {
  const decoder = new TextDecoder(encoding);
  let first = true;
  for await (const chunk of input.chunks()) {
    let text = decoder.decode(chunk, { stream: true });
    if (first && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    first = false;
    if (text) yield text;
  }
  const rest = decoder.decode();
  if (rest) yield rest;
}

import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { constants as zlibConstants, createGunzip, gunzipSync } from 'node:zlib';
import { FileImportError } from './errors.js';

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
  /** The content, decompressed, in chunks. Sets `truncated` when a gzip stream ends early. */
  chunks(): AsyncGenerator<Buffer>;
  truncated: boolean;
}

/** `digest: false` spares a whole extra read when no source id is needed (inspect). */
export async function openInput(path: string, options: { digest?: boolean } = {}): Promise<Input> {
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
  let head = raw;
  if (gzip) {
    try {
      head = gunzipSync(raw, { finishFlush: zlibConstants.Z_SYNC_FLUSH });
    } catch (error) {
      throw new FileImportError('binary_file', `${path} starts like gzip but cannot be decompressed: ${(error as Error).message}`);
    }
  }
  const digest = options.digest === false ? '' : await fileDigest(path);
  const input: Input = {
    path,
    gzip,
    bytes: size,
    head: head.subarray(0, HEAD_BYTES),
    digest,
    truncated: false,
    async *chunks() {
      const file = createReadStream(path, { highWaterMark: CHUNK_BYTES });
      if (!gzip) {
        yield* file as AsyncIterable<Buffer>;
        return;
      }
      const gunzip = createGunzip({ chunkSize: CHUNK_BYTES });
      file.on('error', (e) => gunzip.destroy(e));
      file.pipe(gunzip);
      try {
        for await (const chunk of gunzip as AsyncIterable<Buffer>) yield chunk;
      } catch (error) {
        // A cut-off .gz: keep what was decompressed; the reader reports where the content stops.
        if ((error as { code?: string }).code === 'Z_BUF_ERROR' || /unexpected end/i.test(String(error))) input.truncated = true;
        else throw new FileImportError('binary_file', `${path}: gzip data is corrupt: ${(error as Error).message}`);
      } finally {
        file.destroy();
      }
    },
  };
  return input;
}

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

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import { pageHeaders } from '../page-headers.js';
import { PACKAGE_ROOT } from '../package-root.js';

/** Where `make install` (vite build) writes the page. */
export const WEB_DIST = join(PACKAGE_ROOT, 'api', 'web', 'dist');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json; charset=utf-8',
};

interface Asset {
  body: Buffer;
  gzip: Buffer | undefined;
  type: string;
  mtimeMs: number;
}

function load(file: string): Asset {
  const body = readFileSync(file);
  const type = TYPES[extname(file)] ?? 'application/octet-stream';
  const gzip = body.length > 1024 && /text|json|svg/.test(type) ? gzipSync(body, { level: 9 }) : undefined;
  return { body, gzip, type, mtimeMs: statSync(file).mtimeMs };
}

function send(request: FastifyRequest, reply: FastifyReply, asset: Asset, cache: string): FastifyReply {
  reply
    .header('content-type', asset.type)
    .header('cache-control', cache)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('vary', 'accept-encoding');
  if (asset.gzip && /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''))) return reply.header('content-encoding', 'gzip').send(asset.gzip);
  return reply.send(asset.body);
}

const notBuilt = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>pcg</title></head>
<body style="font:15px/1.5 system-ui,sans-serif;max-width:640px;margin:40px auto;color:#1d2330">
<h1>The web page has not been built</h1>
<p>Run <code>make install</code> (or <code>npx vite build --config api/web/vite.config.ts</code>) and reload.
The API itself works: see <a href="/docs">/docs</a>.</p></body></html>`;

/**
 * `GET /` answers the built page and `GET /assets/<file>` its bundled files
 * (content-hashed names, cached for a year). Only files the build wrote are
 * served: names are looked up in the folder's listing, never joined from the
 * request. Files are read once and re-read when the build replaces them.
 */
export function webRoutes(app: FastifyInstance, dir: string = WEB_DIST): void {
  const cache = new Map<string, Asset>();
  const get = (file: string): Asset | undefined => {
    if (!existsSync(file)) return undefined;
    const mtimeMs = statSync(file).mtimeMs;
    const hit = cache.get(file);
    if (hit && hit.mtimeMs === mtimeMs) return hit;
    const asset = load(file);
    cache.set(file, asset);
    return asset;
  };
  const assetsDir = join(dir, 'assets');
  const assetNames = () => new Set(existsSync(assetsDir) ? readdirSync(assetsDir) : []);

  app.get('/', (request, reply) => {
    const index = get(join(dir, 'index.html'));
    pageHeaders(reply);
    if (!index) return reply.code(503).header('content-type', 'text/html; charset=utf-8').header('cache-control', 'no-store').send(notBuilt);
    return send(request, reply, index, 'no-cache');
  });

  app.get<{ Params: { file: string } }>('/assets/:file', (request, reply) => {
    const name = request.params.file;
    const asset = /^[A-Za-z0-9._-]+$/.test(name) && assetNames().has(name) ? get(join(assetsDir, name)) : undefined;
    if (!asset) throw new ApiError('not_found', `no asset ${name}`);
    return send(request, reply, asset, 'public, max-age=31536000, immutable');
  });
}

import type { FastifyInstance } from 'fastify';
import { openApiDocument } from './openapi.js';
import { pageHeaders } from './page-headers.js';
import type { RouteDef } from './route.js';

/**
 * `GET /openapi.json`, `GET /docs` and `GET /docs.js`: a self-contained page
 * (no CDN; the service may run offline) under the same headers as the web
 * page (page-headers.ts). Its script is a file of its own, not inline, so
 * the policy allows no inline script; it builds the page from the spec with
 * DOM calls and text nodes, never as HTML.
 */
export function docsRoutes(app: FastifyInstance, routes: readonly RouteDef[]): void {
  let cached: string | undefined;
  const spec = () => (cached ??= JSON.stringify(openApiDocument(routes, { version: '0.1.0' })));
  app.get('/openapi.json', (_req, reply) => reply.header('content-type', 'application/json; charset=utf-8').send(spec()));
  app.get('/docs', (_req, reply) => pageHeaders(reply).header('content-type', 'text/html; charset=utf-8').header('cache-control', 'no-cache').send(page));
  app.get('/docs.js', (_req, reply) => pageHeaders(reply).header('content-type', 'text/javascript; charset=utf-8').header('cache-control', 'no-cache').send(script));
}

const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>pcg API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<style>
body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header{background:#1d2330;color:#fff;padding:16px 24px}header h1{margin:0;font-size:20px}
main{max-width:1100px;margin:0 auto;padding:16px 24px}
details{background:#fff;border:1px solid #dde1e7;border-radius:6px;margin:6px 0}
summary{cursor:pointer;padding:8px 12px;display:flex;gap:12px;align-items:baseline}
.m{font:600 12px monospace;padding:2px 6px;border-radius:4px;color:#fff;min-width:52px;text-align:center}
.get{background:#2f7d4f}.post{background:#2360a5}.put{background:#9a6a00}.delete{background:#b23a3a}
code.p{font:13px monospace}.s{color:#5a6270}
.body{padding:4px 16px 12px}pre{background:#f0f2f5;padding:8px;border-radius:4px;overflow:auto;font-size:12px;max-height:360px}
h2{font-size:16px;margin:20px 0 6px;text-transform:capitalize}table{border-collapse:collapse}td,th{padding:2px 10px 2px 0;text-align:left;font-size:13px}
</style></head>
<body><header><h1>pcg API</h1><div id="d" class="s"></div></header><main id="root">Loading /openapi.json…</main>
<script src="docs.js"></script></body></html>`;

const script = `'use strict';
/** An element with attributes and children; every string child is a text node. */
const el = (tag, attrs, ...children) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  for (const c of children) if (c !== null && c !== undefined && c !== false) e.append(c);
  return e;
};
const json = (value) => el('pre', {}, JSON.stringify(value, null, 2));
fetch('openapi.json').then((r) => r.json()).then((spec) => {
  document.getElementById('d').textContent = spec.info.description + ' — OpenAPI ' + spec.openapi + ', version ' + spec.info.version;
  const byTag = {};
  for (const [path, ops] of Object.entries(spec.paths)) for (const [method, op] of Object.entries(ops)) (byTag[op.tags[0]] ??= []).push({ path, method, op });
  const parts = [el('p', {}, el('a', { href: 'openapi.json' }, 'openapi.json'))];
  for (const [tag, ops] of Object.entries(byTag)) {
    parts.push(el('h2', {}, tag));
    for (const { path, method, op } of ops) {
      const body = el('div', { class: 'body' }, el('p', { class: 's' }, op.security.length ? 'Authorization: Bearer <key>' : 'no credentials'));
      if (op.parameters.length) {
        body.append(el('table', {},
          el('tr', {}, ...['parameter', 'in', 'required', 'schema'].map((h) => el('th', {}, h))),
          ...op.parameters.map((p) => el('tr', {}, el('td', {}, el('code', {}, p.name)), el('td', {}, p.in), el('td', {}, p.required ? 'yes' : ''), el('td', {}, el('code', {}, JSON.stringify(p.schema)))))));
      }
      if (op.requestBody) for (const [type, c] of Object.entries(op.requestBody.content)) body.append(el('p', {}, 'Request body ', el('code', {}, type)), json(c.schema));
      for (const [status, r] of Object.entries(op.responses)) {
        body.append(el('p', {}, status + ' — ' + r.description));
        if (r.content) body.append(json(Object.values(r.content)[0].schema));
      }
      parts.push(el('details', {}, el('summary', {}, el('span', { class: 'm ' + method }, method.toUpperCase()), el('code', { class: 'p' }, path), el('span', { class: 's' }, op.summary || '')), body));
    }
  }
  parts.push(el('h2', {}, 'schemas'), json(spec.components.schemas));
  document.getElementById('root').replaceChildren(...parts);
}).catch((e) => { document.getElementById('root').textContent = 'Could not load openapi.json: ' + e; });
`;

import type { FastifyInstance } from 'fastify';
import { openApiDocument } from './openapi.js';
import type { RouteDef } from './route.js';

/** `GET /openapi.json` and `GET /docs`: a self-contained page (no CDN; the service may run offline). */
export function docsRoutes(app: FastifyInstance, routes: readonly RouteDef[]): void {
  let cached: string | undefined;
  const spec = () => (cached ??= JSON.stringify(openApiDocument(routes, { version: '0.1.0' })));
  app.get('/openapi.json', (_req, reply) => reply.header('content-type', 'application/json; charset=utf-8').send(spec()));
  app.get('/docs', (_req, reply) => reply.header('content-type', 'text/html; charset=utf-8').send(page));
}

const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>pcg API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
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
<script>
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c]));
fetch('openapi.json').then((r) => r.json()).then((spec) => {
  document.getElementById('d').textContent = spec.info.description + ' — OpenAPI ' + spec.openapi + ', version ' + spec.info.version;
  const byTag = {};
  for (const [path, ops] of Object.entries(spec.paths)) for (const [method, op] of Object.entries(ops)) (byTag[op.tags[0]] ??= []).push({ path, method, op });
  let html = '<p><a href="openapi.json">openapi.json</a></p>';
  for (const [tag, ops] of Object.entries(byTag)) {
    html += '<h2>' + esc(tag) + '</h2>';
    for (const { path, method, op } of ops) {
      html += '<details><summary><span class="m ' + method + '">' + method.toUpperCase() + '</span><code class="p">' + esc(path) + '</code><span class="s">' + esc(op.summary) + '</span></summary><div class="body">';
      html += '<p class="s">' + (op.security.length ? 'Authorization: Bearer &lt;key&gt;' : 'no credentials') + '</p>';
      if (op.parameters.length) html += '<table><tr><th>parameter</th><th>in</th><th>required</th><th>schema</th></tr>' + op.parameters.map((p) => '<tr><td><code>' + esc(p.name) + '</code></td><td>' + p.in + '</td><td>' + (p.required ? 'yes' : '') + '</td><td><code>' + esc(JSON.stringify(p.schema)) + '</code></td></tr>').join('') + '</table>';
      if (op.requestBody) for (const [type, c] of Object.entries(op.requestBody.content)) html += '<p>Request body <code>' + esc(type) + '</code></p><pre>' + esc(JSON.stringify(c.schema, null, 2)) + '</pre>';
      for (const [status, r] of Object.entries(op.responses)) html += '<p>' + esc(status) + ' — ' + esc(r.description) + '</p>' + (r.content ? '<pre>' + esc(JSON.stringify(Object.values(r.content)[0].schema, null, 2)) + '</pre>' : '');
      html += '</div></details>';
    }
  }
  html += '<h2>schemas</h2><pre>' + esc(JSON.stringify(spec.components.schemas, null, 2)) + '</pre>';
  document.getElementById('root').innerHTML = html;
}).catch((e) => { document.getElementById('root').textContent = 'Could not load openapi.json: ' + e; });
</script></body></html>`;

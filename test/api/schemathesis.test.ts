import { execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, events, GLOBAL, makeTenant, testApp, type TestApp } from './helpers.js';

/**
 * Fuzzes the running API from its own OpenAPI document with schemathesis
 * (pinned, cached venv): no 5xx, every answer's status, content type and
 * body as documented. Bounded in time; the first run installs schemathesis.
 * One worker: schemathesis' threads trip a CPython 3.11 ast race ("AST constructor recursion depth mismatch").
 */
function schemathesis(): string {
  const script = fileURLToPath(new URL('../tools/schemathesis-venv.sh', import.meta.url));
  return execFileSync('bash', [script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 600_000 }).trim();
}

function run(st: string, args: string[], cwd: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    // cwd: schemathesis leaves a cache folder where it runs; keep it in the temp dir.
    const child = spawn(st, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, out }));
  });
}

/** The part of the report that says what went wrong. */
const problems = (out: string) => {
  const at = out.search(/={5,} (FAILURES|ERRORS) ={5,}/);
  return (at >= 0 ? out.slice(at) : out.slice(-4000)).slice(0, 8000);
};

const checks = 'not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance';

describe('schemathesis fuzzing of the OpenAPI document', () => {
  let t: TestApp;
  let st: string;
  let url: string;
  beforeAll(async () => {
    st = schemathesis();
    t = testApp();
    url = await t.app.listen({ host: '127.0.0.1', port: 0 });
  }, 660_000);
  afterAll(() => t.close());

  it('finds no server error and no answer outside its schema, on tenant and global routes', async () => {
    const w = await makeTenant(t.app, 'fuzz');
    const base = `/api/${w.tenantId}/project/${w.projectId}`;
    await call(t.app, 'POST', `${base}/events`, w.admin, events(20));
    const inv = await call(t.app, 'POST', `${base}/investigation`, w.admin, { name: 'i', scope: { activities: ['b'] } });
    const nb = await call(t.app, 'POST', `${base}/investigation/${inv.body.id}/notebook`, w.admin, { name: 'n' });
    const block = await call(t.app, 'POST', `${base}/investigation/${inv.body.id}/notebook/${nb.body.id}/block`, w.admin, { spec: { type: 'variants' } });
    const dash = await call(t.app, 'POST', `${base}/dashboard`, w.admin, { name: 'd', blockIds: [block.body.id] });
    // Real ids for the path parameters, so requests reach the handlers rather than stopping at 403/404.
    const config = join(t.dir, 'schemathesis.toml');
    writeFileSync(
      config,
      [
        '[parameters]',
        `"path.tenantId" = "${w.tenantId}"`,
        `"path.projectId" = "${w.projectId}"`,
        `"path.investigationId" = "${inv.body.id}"`,
        `"path.notebookId" = "${nb.body.id}"`,
        `"path.blockId" = "${block.body.id}"`,
        `"path.dashboardId" = "${dash.body.id}"`,
        `"header.X-Tenant-Id" = "${w.tenantId}"`,
        `"header.X-Project-Id" = "${w.projectId}"`,
        '',
      ].join('\n'),
    );
    const common = ['--checks', checks, '--phases', 'coverage,fuzzing', '--no-color', '--generation-database', 'none', '-w', '1', '--request-timeout', '10', '-n', '20', '--seed', '1'];
    const tenant = await run(st, ['--config-file', config, 'run', `${url}/openapi.json`, ...common, '-H', `Authorization: Bearer ${w.admin}`, '--max-time', '45', '--exclude-path-regex', '^/api/(tenant|user)|graph/stream'], t.dir);
    expect(tenant.code, problems(tenant.out)).toBe(0);
    const global = await run(st, ['--config-file', config, 'run', `${url}/openapi.json`, ...common, '-H', `Authorization: Bearer ${GLOBAL}`, '--max-time', '30', '--include-path-regex', '^/api/(tenant|user)'], t.dir);
    expect(global.code, problems(global.out)).toBe(0);
  }, 300_000);
});

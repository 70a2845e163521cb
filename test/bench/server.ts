import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const GLOBAL = 'bench-global-key-0123456789';

/** A `pcg serve` of its own for a benchmark: a fresh data directory, a random port on 127.0.0.1, rate limits off. */
export interface BenchServer {
  base: string;
  /** The server's data directory. */
  dir: string;
  api(method: string, path: string, key: string, body?: unknown): Promise<any>;
  /** A tenant, a member with read and write, its key and one project; the project's API path. */
  project(name: string): Promise<{ key: string; path: string }>;
  stop(): Promise<void>;
}

export async function startServer(env: Record<string, string> = {}): Promise<BenchServer> {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const base = `http://127.0.0.1:${port}`;
  const dir = mkdtempSync(join(tmpdir(), 'pcg-bench-'));
  const bin = fileURLToPath(new URL('../../api/bin.mjs', import.meta.url));
  // BENCH_SERVER_FLAGS: node flags for the server alone (say --cpu-prof --cpu-prof-dir=/tmp/prof), which NODE_OPTIONS does not take.
  const flags = (process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter(Boolean);
  const server: ChildProcess = spawn(process.execPath, [...flags, bin, 'serve', '--data-dir', dir, '--port', String(port), '--log-level', 'warn'], {
    env: { ...process.env, PCG_GLOBAL_API_KEY: GLOBAL, PCG_RATE_LIMIT_BURST: '0', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stop = async () => {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  };
  const api = async (method: string, path: string, key: string, body?: unknown): Promise<any> => {
    const headers: Record<string, string> = { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
    const r = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
    return r.status === 204 ? undefined : r.json();
  };
  let users = 0;
  for (let i = 0; ; i++) {
    try {
      await fetch(`${base}/api/Action/ping`);
      break;
    } catch {
      if (i > 100) {
        await stop();
        throw new Error('server did not start');
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    base,
    dir,
    api,
    async project(name) {
      const tenant = await api('POST', '/api/tenant', GLOBAL, { name: 'bench' });
      // One user per project made: an email names one user.
      const user = await api('POST', '/api/user', GLOBAL, { email: `bench-${++users}@example.com` });
      await api('POST', `/api/tenant/${tenant.id}/user`, GLOBAL, { userId: user.id, permissions: ['read', 'write'] });
      const { key } = await api('POST', `/api/tenant/${tenant.id}/apikey`, GLOBAL, { userId: user.id, name: 'bench' });
      const project = await api('POST', `/api/${tenant.id}/project`, key, { name });
      return { key, path: `/api/${tenant.id}/project/${project.id}` };
    },
    stop,
  };
}

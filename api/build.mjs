// Bundles the pcg command and its worker threads into dist/ with esbuild, when a source is newer than the bundle
// or with --force (`make install` runs it; api/bin.mjs uses the result while it is newer than every source).
// Packages stay in node_modules; only pcg's own code is bundled, split so that each command loads only its
// modules. The worker entries keep the paths the code asks for them by (new URL('./reader-thread.mjs',
// import.meta.url) from a chunk in dist/), and their tsx set-up becomes a no-op: the bundle is JavaScript already.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { DIST, freshBundle, ROOT } from './bundle.mjs';

// Up to date already (no source newer than it): nothing to do, unless --force.
if (freshBundle('pcg.mjs') && !process.argv.includes('--force')) process.exit(0);

const entries = {
  pcg: 'api/cli/run.ts',
  'command-thread': 'api/cli/command-thread.mjs',
  'reader-thread': 'connectors/files/reader-thread.mjs',
  'xes-part-thread': 'connectors/files/xes-part-thread.mjs',
  'consumer-thread': 'connectors/kafka/consumer-thread.mjs',
  'workers/sources': 'api/workers/sources.mjs',
  'workers/work': 'api/workers/work.mjs',
  'workers/retract': 'api/workers/retract.mjs',
  'workers/check-upload': 'api/workers/check-upload.mjs',
  'workers/usage': 'api/workers/usage.mjs',
};

const noTsx = {
  name: 'no-tsx',
  setup(b) {
    b.onResolve({ filter: /^tsx\/esm\/api$/ }, () => ({ path: 'tsx', namespace: 'no-tsx' }));
    b.onLoad({ filter: /.*/, namespace: 'no-tsx' }, () => ({ contents: 'export function register() {}', loader: 'js' }));
  },
};

rmSync(DIST, { recursive: true, force: true });
await build({
  absWorkingDir: ROOT,
  entryPoints: Object.entries(entries).map(([out, in_]) => ({ out, in: join(ROOT, in_) })),
  outdir: DIST,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  plugins: [noTsx],
  logLevel: 'warning',
});

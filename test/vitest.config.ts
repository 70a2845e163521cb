import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The config lives in test/ so the top level keeps only what the design card names.
export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/bench/**', 'node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});

import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The web page's build: `npx vite build --config api/web/vite.config.ts`
 * (make install runs it) writes api/web/dist/, which `pcg serve` answers at
 * `/` (api/web/serve.ts). Everything the page needs is bundled: no CDN, no
 * web fonts. `npx vite --config api/web/vite.config.ts` serves the sources
 * with reloading and hands /api to a `pcg serve` on 127.0.0.1:8080.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  publicDir: false,
  logLevel: 'warn',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    target: 'es2022',
    sourcemap: false,
    // elkjs (the layout) is one large module; the page is served from the service itself.
    chunkSizeWarningLimit: 4096,
    modulePreload: { polyfill: false },
  },
  server: {
    proxy: { '/api': 'http://127.0.0.1:8080', '/docs': 'http://127.0.0.1:8080', '/openapi.json': 'http://127.0.0.1:8080' },
  },
});

// Whether the bundle `make install` builds (api/build.mjs) may run instead of the TypeScript sources: only when it
// is newer than every source it was built from, so that an edit without `make` runs the edit (through tsx).
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const DIST = join(ROOT, 'dist');
/** The folders bundled; the web page's sources and build (api/web/src, api/web/dist) are Vite's, served as files. */
const SOURCES = ['engine', 'api', 'connectors'];
const SKIP = new Set(['src', 'dist'].map((d) => join('api', 'web', d)));

/** The newest modification time of a source file (TypeScript, JavaScript modules, JSON), in ms; 0 when none. */
export function newestSource(root = ROOT) {
  let newest = 0;
  const walk = (dir) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIP.has(path) && entry.name !== 'node_modules') walk(path);
      } else if (/\.(ts|mts|mjs|js|json)$/.test(entry.name)) newest = Math.max(newest, statSync(join(root, path)).mtimeMs);
    }
  };
  for (const dir of SOURCES) walk(dir);
  return newest;
}

/** The URL of the bundled entry `name` (dist/pcg.mjs, …) when it is up to date with the sources, else undefined. */
export function freshBundle(name, root = ROOT) {
  let built;
  try {
    built = statSync(join(root, 'dist', name)).mtimeMs;
  } catch {
    return undefined;
  }
  return newestSource(root) <= built ? pathToFileURL(join(root, 'dist', name)).href : undefined;
}

import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder holding pcg's package.json, found upwards from this module: it sits in api/ when the sources run
 * through tsx and in dist/ when the bundle runs (api/build.mjs), so files of the package (the web page, the
 * package's version) are found from here rather than relative to the module that reads them.
 */
export const PACKAGE_ROOT = findRoot(dirname(fileURLToPath(import.meta.url)));

function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return from;
  }
}

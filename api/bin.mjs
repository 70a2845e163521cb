#!/usr/bin/env node
// The `pcg` command. `make install` bundles the TypeScript sources into dist/ (api/build.mjs), which starts in
// about 0.15 s where tsx takes 0.4 s; without an up-to-date bundle (right after `npm ci`, or after an edit made
// without `make`) tsx runs the sources directly, so what runs is always what the sources say.
import { freshBundle } from './bundle.mjs';

const bundle = freshBundle('pcg.mjs');
if (bundle) {
  // Stack traces name the sources' lines (the bundle's source maps), as they do through tsx.
  process.setSourceMapsEnabled(true);
  await import(bundle);
}
else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./cli/run.ts');
}

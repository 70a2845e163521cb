#!/usr/bin/env node
// The `pcg` command. tsx runs the TypeScript sources directly, so `npx pcg`
// works right after `npm ci` with no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('./cli/main.ts');
process.exitCode = await main(process.argv.slice(2));

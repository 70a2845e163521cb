// The `pcg` command's entry (api/bin.mjs loads it, from the bundle or through tsx).
import { main } from './main.js';

process.exitCode = await main(process.argv.slice(2));

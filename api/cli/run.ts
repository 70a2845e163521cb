// The `pcg` command's entry (api/bin.mjs loads it, from the bundle or through tsx).
import { main } from './main.js';
import { runOnThread, THREADED_COMMANDS } from './thread.js';

const argv = process.argv.slice(2);
process.exitCode = await (THREADED_COMMANDS.has(argv[0] ?? '') ? runOnThread(argv) : main(argv));

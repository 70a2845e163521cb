// The `pcg` command's entry (api/bin.mjs loads it, from the bundle or through tsx).
import { main } from './main.js';
import { runOnThread, THREADED_COMMANDS } from './thread.js';

const argv = process.argv.slice(2);
// A reader that stops early (`pcg graph … | head`) closes the pipe: the rest of the output has nowhere to go, which
// is no failure of the command. Without this, Node threw an unhandled EPIPE with its stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  process.stderr.write(`pcg: cannot write the output: ${error.message}\n`);
  process.exit(1);
});
process.exitCode = await (THREADED_COMMANDS.has(argv[0] ?? '') ? runOnThread(argv) : main(argv));

// `pcg serve` has stopped once its command returns: every store, thread and socket it knows is closed. A handle
// still open (a client's socket, a thread started during the shutdown) must not keep a stopped server alive: the
// soak once saw "stopped" printed and the process still there 20 s later. The timer is unref'd, so a process that
// ends by itself never waits for it; one that does not is ended, naming what held it.
if (argv[0] === 'serve') {
  setTimeout(() => {
    process.stderr.write(`pcg serve: still running 2 s after it stopped (${process.getActiveResourcesInfo().join(', ')}): exiting\n`);
    process.exit();
  }, 2000).unref();
}

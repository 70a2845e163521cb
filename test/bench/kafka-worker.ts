/** `pcg worker` for the Kafka benchmark: the same host, plus its peak RSS printed on SIGTERM. */
import { hostSources } from '../../api/source-host.js';

const host = hostSources({ dataDir: process.argv[2]!, pollMs: 200 });
process.once('SIGTERM', async () => {
  const peak = Math.round(process.resourceUsage().maxRSS / 1024);
  if (process.env.PCG_BENCH_MEMORY) {
    const m = process.memoryUsage();
    const mib = (n: number) => Math.round(n / 1048576);
    process.stderr.write(`memory: rss ${mib(m.rss)} heapUsed ${mib(m.heapUsed)} heapTotal ${mib(m.heapTotal)} external ${mib(m.external)} arrayBuffers ${mib(m.arrayBuffers)} MiB\n`);
  }
  await host.close();
  process.stdout.write(`peakRssMiB=${peak}\n`);
  process.exit(0);
});

/** `pcg worker` for the Kafka benchmark: the same host, plus its peak RSS printed on SIGTERM. */
import { hostSources } from '../../api/source-host.js';

const host = hostSources({ dataDir: process.argv[2]!, pollMs: 200 });
process.once('SIGTERM', async () => {
  const peak = Math.round(process.resourceUsage().maxRSS / 1024);
  await host.close();
  process.stdout.write(`peakRssMiB=${peak}\n`);
  process.exit(0);
});

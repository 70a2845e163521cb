/**
 * A real Kafka broker on the command line, for benchmarks and trying the
 * connector by hand: `node --import tsx test/tools/kafka-broker.ts` prints
 * {"brokers":[...],"pid":N} once it answers, and stops it (data removed) on
 * SIGINT or SIGTERM. Options: --partitions N (num.partitions), --keep.
 */
import { parseArgs } from 'node:util';
import { KafkaBroker } from '../kafka/broker.js';

const { values } = parseArgs({ options: { partitions: { type: 'string' }, keep: { type: 'boolean' } } });
const broker = await KafkaBroker.start({
  partitionsDefault: values.partitions === undefined ? undefined : Number(values.partitions),
  keep: values.keep ?? false,
});
process.stdout.write(JSON.stringify({ brokers: broker.brokers, pid: broker.pid, ...(values.keep ? { dir: broker.dir } : {}) }) + '\n');

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await broker.stop();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

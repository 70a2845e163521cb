import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registryWriter, SourceRunner, type SourceDefinition, type StateWriter } from '../../connectors/kafka/index.js';
import { buildDocument } from '../../engine/document/index.js';
import { ProjectRegistry } from '../../engine/projects/index.js';
import { KafkaBroker } from './broker.js';
import { eventually, expectSameDocument, messagesOf, referenceDocument, simulatedLog } from './helpers.js';

/**
 * The runner sends chunks ahead of their being applied (connectors/kafka/chunk-window.ts). A chunk the writer
 * fails must not leave a gap: the chunks sent after it are refused, the partition starts again from its stored
 * offset, and the state ends exactly as a clean run's. The group's committed offsets are the state's.
 */
describe('a source runner whose writer fails chunks', () => {
  let broker: KafkaBroker;
  const dir = mkdtempSync(join(tmpdir(), 'pcg-runner-'));
  beforeAll(async () => {
    broker = await KafkaBroker.start();
  });
  afterAll(async () => {
    await broker?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses the chunks after a failed one, starts again from the stored offset, and ends with the clean state', async () => {
    const log = simulatedLog(500, 21);
    await broker.createTopic('flaky', 2);
    await broker.produce('flaky', messagesOf(log, 21, 0.05));
    const ends = await broker.endOffsets('flaky');
    const registry = new ProjectRegistry(dir);
    const real = registryWriter(registry);
    // As the consumer thread's host does: requests answered one at a time, in order, a little later.
    // Every third chunk fails before it is applied (four times in all), while the next ones are on their way.
    let calls = 0;
    let failed = 0;
    const refused: string[] = [];
    let queue: Promise<unknown> = Promise.resolve();
    const inOrder = <T>(work: () => T | Promise<T>): Promise<T> => {
      const done = queue.then(async () => {
        await new Promise((r) => setTimeout(r, 2));
        return work();
      });
      queue = done.catch(() => undefined);
      return done;
    };
    const writer: StateWriter = {
      limits: real.limits,
      storedOffset: (...a) => inOrder(() => real.storedOffset(...a)),
      ingest: (projectId, batch, position) =>
        inOrder(async () => {
          if (++calls % 3 === 0 && failed < 4) {
            failed += 1;
            throw new Error('disk hiccup');
          }
          try {
            return await real.ingest(projectId, batch, position);
          } catch (error) {
            refused.push((error as { code?: string }).code ?? 'other');
            throw error;
          }
        }),
    };
    const source: SourceDefinition = { id: 'src1', tenantId: 't', projectId: 'p1', revision: '1', cluster: 'local', brokers: broker.brokers, topic: 'flaky', groupId: 'pcg.t.src1', format: 'pcg', start: 'earliest' } as SourceDefinition;
    // Small chunks: many in flight at once.
    const runner = new SourceRunner(source, { writer, workerId: 'test', chunk: 50 });
    try {
      await runner.start();
      await eventually(() => {
        const s = runner.status;
        return s.partitions.length === 2 && s.partitions.every((p) => p.applied === ends[p.partition]! - 1 && p.committed === ends[p.partition]) ? s : undefined;
      }, 90_000, 'every partition applied and committed to its end');
      expect(failed).toBe(4);
      // Chunks sent behind a failed one were refused as gaps, never applied past it.
      expect(refused.length).toBeGreaterThan(0);
      expect(new Set(refused)).toEqual(new Set(['position_gap']));
      expect(runner.status.lastError?.message).toMatch(/disk hiccup/);
      expect(runner.status.partitions.map((p) => p.lag)).toEqual([0, 0]);
    } finally {
      await runner.stop();
    }
    const document = buildDocument(registry.state('p1').snapshot()) as unknown as Record<string, any>;
    expectSameDocument(document, referenceDocument(log));
    registry.close();
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConsumerThread, type SourceDefinition } from '../../connectors/kafka/index.js';
import { fromWireError, toWireError } from '../../connectors/kafka/state-writer.js';
import { EngineError } from '../../engine/index.js';
import { ProjectRegistry } from '../../engine/projects/index.js';
import { KafkaBroker } from './broker.js';

/** The consumer thread's lifecycle: what the supervisor sees when the thread dies. */
describe('the consumer thread', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pcg-consumer-thread-'));
  const registry = new ProjectRegistry(dir);
  afterAll(() => {
    registry.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A port nothing listens on: the runner's consumer keeps retrying to connect. */
  const deadPort = async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    await new Promise((r) => server.close(r));
    return port;
  };
  const sourceAt = async (id: string): Promise<SourceDefinition> =>
    ({ id, tenantId: 't', projectId: 'p', revision: '1', cluster: 'local', brokers: [`127.0.0.1:${await deadPort()}`], topic: 'x', groupId: `pcg.t.${id}`, format: 'pcg', start: 'earliest' }) as SourceDefinition;

  it('a runner starting when the thread dies fails its start; the next runner gets a fresh thread and stops cleanly', async () => {
    const thread = new ConsumerThread(registry);
    const failures: Error[] = [];
    const first = thread.runner(await sourceAt('s1'), { workerId: 'w', onFailed: (e) => failures.push(e) });
    const starting = first.start();
    // Connecting to nothing: the start waits (kafkajs retries), until the thread is gone.
    await new Promise((r) => setTimeout(r, 300));
    await (thread as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
    await expect(starting).rejects.toThrow(/consumer thread exited/);
    expect(first.status.state).toBe('failed');
    expect(first.status.lastError?.message).toMatch(/consumer thread exited/);
    // A start in progress is told by its promise, not as a failure of a running consumer.
    expect(failures).toEqual([]);
    await first.stop();

    const second = thread.runner(await sourceAt('s2'), { workerId: 'w' });
    void second.start().catch(() => undefined);
    await new Promise((r) => setTimeout(r, 300));
    await second.stop();
    await thread.close();
  });

  it('a running runner whose thread dies is reported failed through onFailed, as a crashed consumer is (the supervisor then starts a fresh runner)', async () => {
    const broker = await KafkaBroker.start();
    try {
      await broker.createTopic('x', 1);
      const thread = new ConsumerThread(registry);
      const failures: Error[] = [];
      const runner = thread.runner({ ...(await sourceAt('s3')), brokers: broker.brokers }, { workerId: 'w', onFailed: (e) => failures.push(e) });
      await runner.start();
      await (thread as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
      await new Promise((r) => setTimeout(r, 50));
      expect(failures.map((e) => e.message)).toEqual(['the consumer thread exited with code 1']);
      expect(runner.status.state).toBe('failed');
      await runner.stop();
      await thread.close();
    } finally {
      await broker.stop();
    }
  });

  it('errors cross between threads with their engine code', () => {
    const back = fromWireError(structuredClone(toWireError(new EngineError('position_gap', 'offsets up to 4 are applied; the batch follows 9'))));
    expect(back).toBeInstanceOf(EngineError);
    expect((back as EngineError).code).toBe('position_gap');
    expect(back.message).toBe('offsets up to 4 are applied; the batch follows 9');
    const plain = fromWireError(structuredClone(toWireError(new Error('disk full'))));
    expect(plain).not.toBeInstanceOf(EngineError);
    expect(plain.message).toBe('disk full');
  });
});

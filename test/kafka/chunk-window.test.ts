import { describe, expect, it } from 'vitest';
import { ChunkWindow } from '../../connectors/kafka/chunk-window.js';

describe('the chunk window of a runner', () => {
  it('holds at most its size of chunks unapplied, and tracks what each partition next follows', async () => {
    const window = new ChunkWindow(2);
    const finish: (() => void)[] = [];
    const started: number[] = [];
    const apply = (n: number) => () => {
      started.push(n);
      return new Promise<void>((r) => finish.push(r));
    };
    let reads = 0;
    const stored = async () => (reads += 1, 41);
    // First, what the partition follows is read from the state, once.
    expect(await window.next(0, stored)).toBe(41);
    expect(await window.next(0, stored)).toBe(41);
    expect(reads).toBe(1);
    await window.room();
    window.send(0, 50, apply(1));
    await window.room();
    window.send(1, 7, apply(2));
    expect(await window.next(0, stored)).toBe(50);
    expect(await window.next(1, stored)).toBe(7);
    // Full: room comes only once a chunk is applied.
    let roomy = false;
    const waiting = window.room().then(() => (roomy = true));
    await new Promise((r) => setTimeout(r, 10));
    expect(roomy).toBe(false);
    finish[0]!();
    await waiting;
    expect(roomy).toBe(true);
    window.send(0, 60, apply(3));
    expect(started).toEqual([1, 2, 3]);
    // Forgotten (a failure, an assignment): read from the state again.
    window.forget(0);
    expect(await window.next(0, stored)).toBe(41);
    expect(reads).toBe(2);
    // Drain waits for every chunk sent.
    let drained = false;
    const draining = window.drain().then(() => (drained = true));
    finish[1]!();
    await new Promise((r) => setTimeout(r, 10));
    expect(drained).toBe(false);
    finish[2]!();
    await draining;
    expect(drained).toBe(true);
  });
});

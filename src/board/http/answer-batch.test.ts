import { describe, expect, it } from 'vitest';
import { AnswerBatch, BATCH_MAX } from './answer-batch.js';

describe('AnswerBatch', () => {
  it('writes the answers of one turn together, after the turn, in the order they came', async () => {
    const written: string[] = [];
    const batch = new AnswerBatch(() => undefined);
    batch.add(() => written.push('a'));
    batch.add(() => written.push('b'));
    await Promise.resolve();
    // Not before the event loop has finished this turn (microtasks included).
    expect(written).toEqual([]);
    await new Promise((r) => setImmediate(r));
    expect(written).toEqual(['a', 'b']);
    batch.add(() => written.push('c'));
    await new Promise((r) => setImmediate(r));
    expect(written).toEqual(['a', 'b', 'c']);
  });

  it('an answer that cannot be written is reported and does not keep the others back', async () => {
    const written: string[] = [];
    const errors: unknown[] = [];
    const batch = new AnswerBatch((e) => errors.push(e));
    batch.add(() => {
      throw new Error('socket gone');
    });
    batch.add(() => written.push('b'));
    await new Promise((r) => setImmediate(r));
    expect(written).toEqual(['b']);
    expect(errors).toHaveLength(1);
    batch.add(() => written.push('c'));
    await new Promise((r) => setImmediate(r));
    expect(written).toEqual(['b', 'c']);
  });

  it('writes at once when BATCH_MAX answers wait (after a stall no answer waits for hundreds)', async () => {
    const written: number[] = [];
    const batch = new AnswerBatch(() => undefined);
    for (let i = 0; i < BATCH_MAX * 2 + 3; i++) batch.add(() => written.push(i));
    expect(written).toEqual(Array.from({ length: BATCH_MAX * 2 }, (_, i) => i));
    await new Promise((r) => setImmediate(r));
    expect(written).toHaveLength(BATCH_MAX * 2 + 3);
    batch.add(() => written.push(-1));
    await new Promise((r) => setImmediate(r));
    expect(written.at(-1)).toBe(-1);
  });
});

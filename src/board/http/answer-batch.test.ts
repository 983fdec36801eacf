import { describe, expect, it } from 'vitest';
import { AnswerBatch } from './answer-batch.js';

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
});

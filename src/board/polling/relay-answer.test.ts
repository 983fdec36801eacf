import { describe, expect, it } from 'vitest';
import { relayAnswer } from './relay-answer.js';

describe('relayAnswer', () => {
  it('passes a JSON answer with a final status through', () => {
    expect(relayAnswer(409, '{"detail":"busy"}')).toEqual({
      kind: 'answer',
      status: 409,
      body: { detail: 'busy' },
    });
  });

  it('refuses statuses outside 200-599 and bodies that are not JSON', () => {
    for (const status of [999, 600, 150, 100]) {
      const r = relayAnswer(status, '{}');
      expect(r.kind).toBe('unreachable');
      expect(r.kind === 'unreachable' && r.error).toContain(String(status));
    }
    expect(relayAnswer(200, '<html>')).toMatchObject({ kind: 'unreachable' });
    expect(relayAnswer(200, `${'['.repeat(5000)}${']'.repeat(5000)}`)).toMatchObject({
      kind: 'unreachable',
    });
  });
});

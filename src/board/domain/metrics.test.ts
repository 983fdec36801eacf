import { describe, expect, it } from 'vitest';
import { sessionsOf } from './metrics.js';

describe('sessionsOf', () => {
  it('cleans what an agent that does not refuse bad text sent: no control or bidi characters', () => {
    const sessions = sessionsOf({
      sessions: [
        { session: 'ci\u202e7', why: 'attention', text: 'line 1\nline 2\r\u001b[2J', at: 'now' },
      ],
    });
    expect(sessions).toEqual([
      { session: 'ci\ufffd7', why: 'attention', text: 'line 1\nline 2\ufffd\ufffd[2J', at: 'now' },
    ]);
  });
});

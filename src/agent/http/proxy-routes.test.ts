import { describe, expect, it } from 'vitest';
import { withoutCredentials } from './proxy-routes.js';

const credentials = { token: 'operator-token-0123456789', boardKey: 'board-key-0123456789' };

describe('withoutCredentials', () => {
  it('keeps the query as it was sent', () => {
    expect(withoutCredentials('/proxy/x?b=2&a=1&a=%20', credentials)).toBe('b=2&a=1&a=%20');
    expect(withoutCredentials('/proxy/x', credentials)).toBe('');
  });

  it("drops a token parameter that is one of the agent's credentials, and only that", () => {
    expect(
      withoutCredentials('/p?a=1&token=operator-token-0123456789&token=theirs', credentials),
    ).toBe('a=1&token=theirs');
    expect(withoutCredentials('/p?token=board-key-0123456789', credentials)).toBe('');
    expect(withoutCredentials('/p?%74oken=board%2Dkey-0123456789&x', credentials)).toBe('x');
  });
});

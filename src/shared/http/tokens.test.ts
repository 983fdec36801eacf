import { describe, expect, it } from 'vitest';
import { presentedToken, tokenEquals } from './tokens.js';

describe('presentedToken', () => {
  it('takes the Bearer header first, then ?token=', () => {
    expect(presentedToken('Bearer abc', { token: 'def' })).toBe('abc');
    expect(presentedToken('bearer abc', {})).toBe('abc');
    // As FastAPI's HTTPBearer: one space separates; a tab does not, a second space is kept.
    expect(presentedToken('Bearer\tabc', {})).toBeNull();
    expect(presentedToken('Bearer  abc', {})).toBe(' abc');
    expect(presentedToken('Bearer', {})).toBeNull();
    expect(presentedToken(undefined, { token: 'def' })).toBe('def');
    expect(presentedToken('Basic abc', { token: 'def' })).toBe('def');
    expect(presentedToken(undefined, { token: '' })).toBeNull();
    expect(presentedToken(undefined, {})).toBeNull();
  });

  it('a repeated ?token= presents its last non-empty value, never an empty one (found by the fuzz)', () => {
    // `?token&token=T` used to present '' — a wrong token, counted against the address.
    expect(presentedToken(undefined, { token: ['', 'good'] })).toBe('good');
    expect(presentedToken(undefined, { token: ['bad', 'good'] })).toBe('good');
    expect(presentedToken(undefined, { token: ['', ''] })).toBeNull();
  });
});

describe('tokenEquals', () => {
  it('is true only for the same string', () => {
    expect(tokenEquals('abc', 'abc')).toBe(true);
    expect(tokenEquals('abc', 'abd')).toBe(false);
    expect(tokenEquals('', 'abc')).toBe(false);
  });
});

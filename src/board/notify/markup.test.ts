import { describe, expect, it } from 'vitest';
import { unpairStyleMarkers, zeroWidthAfter } from './markup.js';

const ZWSP = '\u200b';

/** The helpers for a service whose format has no escape (Google Chat's, and the next one's). */
describe('zero-width helpers', () => {
  it('zeroWidthAfter: a zero-width space after each character named, nothing else changed', () => {
    expect(zeroWidthAfter('<users/all> [x](y)', /[<\]]/g)).toBe(`<${ZWSP}users/all> [x]${ZWSP}(y)`);
    expect(zeroWidthAfter('plain text', /[<\]]/g)).toBe('plain text');
  });

  it('unpairStyleMarkers: markers outside words kept apart, those inside a word kept as they are', () => {
    expect(unpairStyleMarkers('*bold* db_primary ~x~ `c`')).toBe(
      `${ZWSP}*${ZWSP}bold${ZWSP}*${ZWSP} db_primary ${ZWSP}~${ZWSP}x${ZWSP}~${ZWSP} ${ZWSP}\`${ZWSP}c${ZWSP}\`${ZWSP}`,
    );
  });
});

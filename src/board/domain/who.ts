import type { Who } from '../schemas.js';

/** The board token: the built-in admin (and what the board itself does on its own). */
export const BOARD_WHO: Who = Object.freeze({
  word: 'board',
  actor: Object.freeze({ kind: 'board_token', name: 'board_token' }),
});

/** Nobody: a request no credential was accepted for (a refusal, an unauthenticated push). */
export const ANONYMOUS_WHO: Who = Object.freeze({
  word: 'anonymous',
  actor: Object.freeze({ kind: 'anonymous', name: '' }),
});

/** A machine, in its own words (its report said it). */
export function machineWho(name: string): Who {
  return { word: 'machine', actor: { kind: 'machine', name } };
}

/** A machine announcing itself with the registration token. */
export function registrationWho(name: string): Who {
  return { word: 'registration', actor: { kind: 'machine', name } };
}

/** What a stored entry without an actor (written before actors were kept) is read as. */
export function actorOfWord(word: Who['word'], target: string): Who['actor'] {
  switch (word) {
    case 'board':
      return BOARD_WHO.actor;
    case 'machine':
    case 'registration':
      return { kind: 'machine', name: target.split('/')[0] ?? '' };
    default:
      return ANONYMOUS_WHO.actor;
  }
}

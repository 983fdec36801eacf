import { describe, expect, it } from 'vitest';
import { printAddress } from './address-line.js';

function printed(isTTY: boolean | undefined, env: NodeJS.ProcessEnv = {}): string {
  let text = '';
  const out = { isTTY, write: (s: string) => (text += s) };
  printAddress(
    'https://10.0.0.9:8700',
    { boardToken: 'a token/with?odd=chars', source: '/etc/panoptes/board/board.yaml' },
    out,
    env,
  );
  return text;
}

describe('the address line of a board with --config', () => {
  it('on a terminal: a link with the token, encoded for a query string', () => {
    expect(printed(true)).toBe(
      'Panoptes board: https://10.0.0.9:8700/?token=a%20token%2Fwith%3Fodd%3Dchars\n',
    );
  });

  it('anywhere else: the address and where the token is, never the token', () => {
    expect(printed(undefined)).toBe(
      'Panoptes board: https://10.0.0.9:8700/ (sign in with the board token: board_token in /etc/panoptes/board/board.yaml)\n',
    );
    expect(printed(false, { PANOPTES_BOARD_TOKEN: 'x'.repeat(20) })).toBe(
      'Panoptes board: https://10.0.0.9:8700/ (sign in with the board token: PANOPTES_BOARD_TOKEN)\n',
    );
    expect(printed(false, { PANOPTES_BOARD_TOKEN: '' })).toContain('board_token in /etc/');
  });
});

/** Where stdout goes: a terminal (`isTTY`) or a pipe, a file, a journal. */
export interface Stdout {
  isTTY?: boolean | undefined;
  write(text: string): unknown;
}

/**
 * The line a board started with `--config DIR` prints on stdout once it listens, for the person
 * who started it: the page's address. On a terminal it is a link that signs in (`?token=`);
 * anywhere else (systemd's journal, a file, a pipe) it says where the token is instead, since a
 * token must not be written to a log. `tokenFrom` names that place.
 */
export function addressLine(
  url: string,
  token: string,
  tokenFrom: string,
  terminal: boolean,
): string {
  return terminal
    ? `Panoptes board: ${url}/?token=${encodeURIComponent(token)}\n`
    : `Panoptes board: ${url}/ (sign in with the board token: ${tokenFrom})\n`;
}

/** Prints the address line of a board configured by a file (`settings.source`) on `out`. */
export function printAddress(
  url: string,
  settings: { boardToken: string; source: string },
  out: Stdout = process.stdout,
  env: NodeJS.ProcessEnv = process.env,
): void {
  // The variable overrides the file when it is set and not empty (BOARD_ENV_OVERRIDES).
  const fromEnv = (env.PANOPTES_BOARD_TOKEN ?? '') !== '';
  const tokenFrom = fromEnv ? 'PANOPTES_BOARD_TOKEN' : `board_token in ${settings.source}`;
  out.write(addressLine(url, settings.boardToken, tokenFrom, out.isTTY === true));
}

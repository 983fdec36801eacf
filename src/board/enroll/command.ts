/** The file name the pasted command saves the agent as, and the route that serves it. */
export const AGENT_FILE_NAME = 'panoptes-agent.mjs';
export const AGENT_FILE_ROUTE = `/agent/${AGENT_FILE_NAME}`;

/** What a pasted command is made of. Every value is quoted for a POSIX shell. */
export interface EnrollCommandParts {
  /** The board as the machine reaches it: `public_url`, or where the request came to. */
  board: string;
  name: string;
  key: string;
  registrationToken: string;
  /** Hex SHA-256 of the agent file the board serves. */
  sha256: string;
}

/** Single-quotes a value for sh, bash and zsh ('it'\''s). */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** What the command says, on standard error, when the downloaded file is not the stated one. */
export const MISMATCH_MESSAGE = `${AGENT_FILE_NAME} does not match the SHA-256 the board gave: removed, not run`;

/**
 * The one command that adds a machine: fetch the agent file from the board, check it against
 * its SHA-256 before anything runs (`sha256sum`, or `shasum -a 256` where that is what there
 * is; on a mismatch the file is removed and the command fails), then enroll (which writes the
 * agent's config, mode 0600, and starts it). The key and the registration token go in the
 * enroll's environment, never in its arguments, which `ps` shows to every user. Never the
 * board token.
 */
export function enrollCommand(parts: EnrollCommandParts): string {
  const board = parts.board.replace(/\/+$/, '');
  if (!/^[0-9a-f]{64}$/.test(parts.sha256)) throw new Error('not a hex SHA-256');
  const sums = shellQuote(`${parts.sha256}  ${AGENT_FILE_NAME}`);
  return [
    `curl -fsSL ${shellQuote(`${board}${AGENT_FILE_ROUTE}`)} -o ${AGENT_FILE_NAME}`,
    '&& {',
    `if command -v sha256sum >/dev/null; then echo ${sums} | sha256sum -c -;`,
    `else echo ${sums} | shasum -a 256 -c -; fi`,
    `|| { rm -f ${AGENT_FILE_NAME}; echo ${shellQuote(MISMATCH_MESSAGE)} >&2; false; }; }`,
    '&&',
    `PANOPTES_BOARD_KEY=${shellQuote(parts.key)}`,
    `PANOPTES_REGISTRATION_TOKEN=${shellQuote(parts.registrationToken)}`,
    `node ${AGENT_FILE_NAME} enroll`,
    // `--flag=value`: a value that begins with '-' is still a value.
    `--board=${shellQuote(board)}`,
    `--name=${shellQuote(parts.name)}`,
  ].join(' ');
}

/** host[:port] as a Host header may carry it (a name, IPv4, or [IPv6]); anything else is refused. */
const HOST_PATTERN =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252})|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

/**
 * The board's address for the command: `public_url` when set, else the scheme and the Host the
 * request came with (null when that Host is not a plain host[:port]).
 */
export function boardAddress(
  publicUrl: string | null,
  tls: boolean,
  host: string | undefined,
): string | null {
  if (publicUrl !== null) return publicUrl.replace(/\/+$/, '');
  if (host === undefined || !HOST_PATTERN.test(host)) return null;
  return `${tls ? 'https' : 'http'}://${host}`;
}

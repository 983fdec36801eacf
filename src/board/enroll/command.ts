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
}

/** Single-quotes a value for sh, bash and zsh ('it'\''s'). */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * The one command that adds a machine: fetch the agent file from the board, then enroll (which
 * writes the agent's config, mode 0600, and starts it). Never the board token.
 */
export function enrollCommand(parts: EnrollCommandParts): string {
  const board = parts.board.replace(/\/+$/, '');
  return [
    `curl -fsSL ${shellQuote(`${board}${AGENT_FILE_ROUTE}`)} -o ${AGENT_FILE_NAME}`,
    '&&',
    `node ${AGENT_FILE_NAME} enroll`,
    // `--flag=value`: a value that begins with '-' (a base64url key may) is still a value.
    `--board=${shellQuote(board)}`,
    `--name=${shellQuote(parts.name)}`,
    `--key=${shellQuote(parts.key)}`,
    `--registration-token=${shellQuote(parts.registrationToken)}`,
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

import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The secrets of the embedded default, generated once and kept in the data directory. */
export interface EmbeddedTokens {
  board_token: string;
  agent_token: string;
  board_key: string;
  /** Carried by the command "Add a machine" makes (added to a file written without it). */
  registration_token: string;
}

const newToken = () => randomBytes(24).toString('base64url');

/** Reads the embedded default's tokens, creating them (file mode 0600) on first use. */
export function embeddedTokens(dataDir: string): EmbeddedTokens {
  const file = join(dataDir, 'embedded-tokens.json');
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as Partial<EmbeddedTokens>;
    if (
      typeof value.board_token === 'string' &&
      typeof value.agent_token === 'string' &&
      typeof value.board_key === 'string' &&
      [value.board_token, value.agent_token, value.board_key].every((t) => t.length >= 16)
    ) {
      if (typeof value.registration_token === 'string' && value.registration_token.length >= 16)
        return value as EmbeddedTokens;
      // A file of an earlier version: its tokens are kept (open browsers stay signed in).
      return write(dataDir, file, { ...(value as EmbeddedTokens), registration_token: newToken() });
    }
  } catch {
    // absent or unreadable: make new ones
  }
  return write(dataDir, file, {
    board_token: newToken(),
    agent_token: newToken(),
    board_key: newToken(),
    registration_token: newToken(),
  });
}

function write(dataDir: string, file: string, tokens: EmbeddedTokens): EmbeddedTokens {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  writeFileSync(file, `${JSON.stringify(tokens, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return tokens;
}

import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The secrets of the embedded default, generated once and kept in the data directory. */
export interface EmbeddedTokens {
  board_token: string;
  agent_token: string;
  board_key: string;
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
      return value as EmbeddedTokens;
    }
  } catch {
    // absent or unreadable: make new ones
  }
  const tokens: EmbeddedTokens = {
    board_token: newToken(),
    agent_token: newToken(),
    board_key: newToken(),
  };
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  writeFileSync(file, `${JSON.stringify(tokens, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return tokens;
}

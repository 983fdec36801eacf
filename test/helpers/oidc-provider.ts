import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, type RunningProgram, startProcess } from '../../harness/processes.js';
import type { TestCa } from './certs.js';
import type { TempDir } from './tmp.js';

/** A client the provider knows (the board, or another relying party). */
export interface ProviderClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
  post_logout_redirect_uris?: string[];
}

/** What the provider signs wrongly in the next ID tokens (with its own real key). */
export interface Mischief {
  claims?: Record<string, unknown>;
  expired?: boolean;
}

/** A running oidc-provider: its issuer URL, and the files that change what it says. */
export interface TestProvider {
  issuer: string;
  program: RunningProgram;
  /** Sets each user's groups (read again at every sign-in). */
  setUsers(users: Record<string, { groups: string[] }>): void;
  /** Makes the provider sign ID tokens wrongly from now on (null: rightly again). */
  misbehave(mischief: Mischief | null): void;
  stop(): Promise<void>;
}

/**
 * Starts `oidc-provider` (v9) as its own process over HTTPS on 127.0.0.1 with a certificate from
 * `ca`. Version 9 prints "Unsupported runtime" on Node 20 and runs all the same.
 */
export async function startOidcProvider(
  dir: TempDir,
  ca: TestCa,
  clients: ProviderClient[],
  port = 0,
): Promise<TestProvider> {
  const { cert, key } = ca.issue('oidc-provider');
  const usersFile = join(dir.path, 'oidc-users.json');
  const mischiefFile = join(dir.path, 'oidc-mischief.json');
  writeFileSync(usersFile, '{}');
  const setup = dir.write(
    'oidc-provider.json',
    JSON.stringify({
      cert,
      key,
      port,
      usersFile,
      mischiefFile,
      clients: clients.map((c) => ({
        ...c,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      })),
    }),
  );
  const program = await startProcess(
    'oidc-provider',
    process.execPath,
    [join(ROOT, 'test/helpers/oidc-provider-main.mjs'), setup],
    { env: { ...process.env, NODE_ENV: 'test' } },
  );
  return {
    issuer: program.url,
    program,
    setUsers: (users) => writeFileSync(usersFile, JSON.stringify(users)),
    misbehave: (mischief) =>
      mischief === null
        ? writeFileSync(mischiefFile, 'null')
        : writeFileSync(mischiefFile, JSON.stringify(mischief)),
    stop: async () => {
      await program.stop();
    },
  };
}

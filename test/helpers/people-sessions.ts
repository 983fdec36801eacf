import { join } from 'node:path';
import Database from 'libsql';
import type { BrowserContext } from 'playwright-core';
import { Access } from '../../src/board/auth/access.js';
import type { BindingView } from '../../src/board/auth/roles.js';
import type { Journal } from '../../src/board/domain/journal.js';
import { sqliteAuthTable } from '../../src/board/store/sqlite/auth-table.js';
import { GroupCommit } from '../../src/board/store/sqlite/group-commit.js';
import { STATE_FILE } from '../../src/board/store/sqlite/state-store.js';
import { systemClock } from '../../src/shared/clock.js';

/**
 * People and their browser sessions, written by the board's own `Access` into the running
 * board's store (its state.db): what a sign-in route would do, for pages to be signed in as
 * someone before the sign-in routes exist.
 */
export class PeopleSessions {
  private readonly db: Database.Database;
  readonly access: Access;

  constructor(dataDir: string) {
    this.db = new Database(join(dataDir, STATE_FILE), { timeout: 5000 });
    const nothing = { record: async () => undefined } as unknown as Pick<Journal, 'record'>;
    this.access = new Access(
      sqliteAuthTable(this.db, new GroupCommit(this.db)),
      systemClock,
      nothing,
    );
  }

  /** A person (local) with `bindings` and a new session; answers the cookie's secret. */
  async signIn(name: string, bindings: BindingView[]): Promise<string> {
    const now = Date.now();
    await this.access.people.put({
      name,
      source: 'local',
      bindings,
      created_at: now,
      signed_in_at: now,
    });
    return this.access.sessions.start(name, 'password', bindings);
  }

  /** Gives `context` the session cookie of plain HTTP (`panoptes`) for the board at `url`. */
  async signInBrowser(
    context: BrowserContext,
    url: string,
    name: string,
    bindings: BindingView[],
  ): Promise<string> {
    const secret = await this.signIn(name, bindings);
    await context.addCookies([{ name: 'panoptes', value: secret, url }]);
    return secret;
  }

  close(): void {
    this.db.close();
  }
}

import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PgServer, startPostgres } from '../harness/postgres.js';
import { type RunningProgram, startBoard } from '../harness/processes.js';
import { openBoard, useBrowserPage, type WatchedPage } from './helpers/browser.js';
import { Recorder, writeBoardConfig } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'ui-cluster-board-token-8d2e6f0a4c'; // secret-scan: token
const REGISTRATION = 'ui-cluster-registration-1c3e5a7b9d'; // secret-scan: token

const LANGUAGES = ['en', 'de', 'fr', 'es', 'ja'] as const;
const catalogue = (code: string) =>
  (
    JSON.parse(
      readFileSync(new URL(`../src/board/lang/${code}.json`, import.meta.url), 'utf8'),
    ) as { messages: Record<string, string> }
  ).messages;

/**
 * Two boards on one PostgreSQL with no machines yet: each page marks the board serving it in
 * the Boards line, and the empty board points to the "Add a machine" button; in every built-in
 * language.
 */
describe('UI: which board this is, and an empty board', () => {
  const dir = tempDir('panoptes-ui-cluster-');
  const http = new Recorder();
  let pg: PgServer;
  const boards: RunningProgram[] = [];
  // First: its afterAll, which removes the directory, runs after the one that stops the boards.
  const ui = useBrowserPage({ dir, page: false });

  beforeAll(async () => {
    pg = await startPostgres();
    const store = await pg.createDatabase('ui');
    for (const id of ['a', 'b']) {
      const config = writeBoardConfig(dir, id, {
        board_token: TOKEN,
        registration_token: REGISTRATION,
        board_id: id,
        store,
        machines: [],
      });
      boards.push(await startBoard(config));
    }
  }, 90_000);
  afterAll(async () => {
    await Promise.all(boards.map((b) => b.stop()));
    pg?.destroy();
  });

  const open = async (url: string, locale: string): Promise<WatchedPage> => {
    const watched = await ui.open({ locale });
    await openBoard(watched.page, url, TOKEN);
    return watched;
  };

  it('GET /api/cluster says which board answered', async () => {
    for (const [i, id] of ['a', 'b'].entries()) {
      const url = boards[i]?.url ?? '';
      const view = (await http.call(`${url}/api/cluster`, { token: TOKEN })).json as {
        self: string;
        boards: { id: string }[];
      };
      expect(view.self).toBe(id);
      expect(view.boards.map((b) => b.id)).toEqual(['a', 'b']);
    }
  });

  for (const code of LANGUAGES) {
    it(`${code}: the Boards line marks this board; the empty board names the Add button`, async () => {
      const messages = catalogue(code);
      for (const [i, id] of ['a', 'b'].entries()) {
        const watched = await open(boards[i]?.url ?? '', code);
        const { page } = watched;
        try {
          // The page shows English until its catalogue has come, and reads /api/cluster every
          // 5 s (its first answer lists both boards).
          const line = page.getByTestId('cluster');
          await expect.poll(() => line.locator('.board-id').count(), { timeout: 15_000 }).toBe(2);
          const self = line.locator('[data-self="true"]');
          await expect.poll(() => self.textContent()).toBe(`●${id} (${messages['cluster.self']})`);
          expect(await self.count()).toBe(1);

          const button = messages['add.button'] ?? '';
          await expect.poll(() => page.getByRole('button', { name: button }).count()).toBe(1);
          await expect
            .poll(() => page.getByTestId('empty').textContent())
            .toBe(messages['list.emptyBoard']?.replace('{button}', button));
          await watched.expectClean();
        } finally {
          await page.context().close();
        }
      }
    });
  }

  scanForSecretsAfterAll(() => ({ secrets: [TOKEN, REGISTRATION, pg.password], dirs: [dir.path] }));
});

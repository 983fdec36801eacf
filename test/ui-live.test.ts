import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { type RunningProgram, startAgent, startProgram } from '../harness/processes.js';
import { BOARD_KEY, OPERATOR, REGISTRATION, SECRETS } from './helpers/agent-fixtures.js';
import { BOARD_TOKEN, card, openBoard, recordRequests, useBrowserPage } from './helpers/browser.js';
import { closedPort } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

/** A lost connection says so, and the page resumes with a fresh board when the board is back. */
describe('UI: live connection', () => {
  const dir = tempDir('panoptes-ui-live-');
  const ui = useBrowserPage({ dir });
  let agent: RunningProgram;
  let board: RunningProgram | undefined;
  let port: number;

  const writeBoard = (machines: Record<string, unknown>[]) =>
    dir.write(
      'board/board.yaml',
      stringify({
        board_token: BOARD_TOKEN,
        registration_token: REGISTRATION,
        sweep_interval: 0.5,
        poll_timeout: 2,
        machines,
      }),
    );
  const startBoardOnPort = () =>
    startProgram('board', ['--config', `${dir.path}/board`, '--port', String(port)]);

  beforeAll(async () => {
    port = await closedPort();
    agent = await startAgent(
      dir.write(
        'web1.yaml',
        stringify({ name: 'web1', token: OPERATOR, board_key: BOARD_KEY, services: {} }),
      ),
    );
    writeBoard([{ name: 'web1', url: agent.url, key: BOARD_KEY }]);
    board = await startBoardOnPort();
  });
  afterAll(async () => {
    await board?.stop();
    await agent?.stop();
  });

  it('shows "reconnecting" when the board goes away and resumes with a fresh board', async () => {
    const { page } = ui;
    // While the board is gone, the socket's failed attempts are logged by Chromium itself; while
    // it is closing, a request may get its 503 (return503OnClosing), which Chromium logs too.
    ui.watched.allow(
      /WebSocket connection to .* failed|ERR_CONNECTION_REFUSED|ERR_CONNECTION_RESET|status of 503/,
    );
    const requests = recordRequests(page);
    const sockets: string[] = [];
    page.on('websocket', (ws) => sockets.push(ws.url()));
    await openBoard(page, `http://127.0.0.1:${port}`, BOARD_TOKEN);
    const status = page.locator('p.connection[role="status"]');
    await expect.poll(() => status.getAttribute('data-status')).toBe('live');
    expect(await status.textContent()).toBe('Live');
    await expect.poll(() => card(page, 'web1').getAttribute('data-state')).toBe('up');

    await board?.stop();
    board = undefined;
    await expect.poll(() => status.getAttribute('data-status')).toBe('reconnecting');
    expect(await status.textContent()).toBe('Connection lost — reconnecting…');
    // What was known stays on screen meanwhile.
    expect(await card(page, 'web1').count()).toBe(1);

    // The board comes back with another configuration: the page shows the new board.
    writeBoard([
      { name: 'web1', url: agent.url, key: BOARD_KEY },
      { name: 'web9', url: `http://127.0.0.1:${await closedPort()}`, key: BOARD_KEY },
    ]);
    board = await startBoardOnPort();
    await expect.poll(() => status.getAttribute('data-status'), { timeout: 20_000 }).toBe('live');
    await expect.poll(() => card(page, 'web9').count()).toBe(1);
    await expect.poll(() => page.getByTestId('summary').textContent()).toContain('Machines: 2');
    expect(sockets.length).toBeGreaterThanOrEqual(2);
    for (const url of sockets) expect(new URL(url).pathname).toBe('/api/live');

    // Back live, nothing polls: no board fetch while the socket stays up.
    const before = requests.filter((r) => r.url.endsWith('/api/board')).length;
    await fetch(`http://127.0.0.1:${port}/api/report`, {
      method: 'POST',
      headers: { authorization: `Bearer ${REGISTRATION}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'lab1', location: 'http://lab1.example/' }),
    }).then((r) => r.text());
    await card(page, 'lab1').waitFor();
    expect(requests.filter((r) => r.url.endsWith('/api/board')).length).toBe(before);
    await ui.watched.expectClean();
  });

  // Every answer, message, log line and data file of this file's tests, searched for every secret.
  scanForSecretsAfterAll(() => ({ secrets: [BOARD_TOKEN, ...SECRETS], dirs: [dir.path] }));
});

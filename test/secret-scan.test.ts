import { createServer } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { startBoard } from '../harness/processes.js';
import { writeBoardConfig } from './helpers/fleet.js';
import { scanForSecrets } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const SECRET = 'scan-self-test-secret-4a6c8e0b2d';
const TOKEN = 'scan-self-test-board-token-5b7d9f';

/** The scan itself can fail: each place it searches is shown a secret and must report it. */
describe('the secret scan finds a secret wherever a test could see one', () => {
  const dir = tempDir('panoptes-scan-');
  afterAll(() => dir.cleanup());

  it('in a fetch answer (body and headers) and a WebSocket message, captured without help', async () => {
    const server = createServer((req, res) => {
      res.setHeader('x-echo', req.url === '/header' ? SECRET : 'none');
      res.end(req.url === '/body' ? `{"leak":"${SECRET}"}` : '{}');
    });
    const wss = new WebSocketServer({ server });
    wss.on('connection', (socket) => socket.send(`{"leak":"${encodeURIComponent(SECRET)}x"}`));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no address');
    const base = `127.0.0.1:${address.port}`;

    expect(scanForSecrets({ secrets: [SECRET], programs: [] })).toEqual([]);
    await (await fetch(`http://${base}/header`)).text();
    const afterHeader = scanForSecrets({ secrets: [SECRET], programs: [] });
    expect(afterHeader.map((h) => h.where)).toEqual([expect.stringMatching(/^fetch or WebSocket/)]);
    await (await fetch(`http://${base}/body`)).text();
    await new Promise((r) => setTimeout(r, 50));
    expect(scanForSecrets({ secrets: [SECRET], programs: [] }).length).toBe(2);
    const socket = new WebSocket(`ws://${base}`);
    await new Promise((resolve) => socket.once('message', resolve));
    socket.close();
    // Percent-encoded counts as well.
    expect(scanForSecrets({ secrets: [SECRET], programs: [] }).length).toBe(3);
    wss.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('in program output and in data files, but not in config files', async () => {
    const configDir = writeBoardConfig(dir, 'b', { board_token: TOKEN });
    const board = await startBoard(configDir);
    await board.stop();
    // The config file holds the token by design; nothing else does.
    expect(scanForSecrets({ secrets: [TOKEN], dirs: [dir.path] })).toEqual([]);
    dir.write('b/data/leaky.log', `something ${TOKEN} something`);
    expect(scanForSecrets({ secrets: [TOKEN], dirs: [dir.path] })).toEqual([
      { secret: 0, where: 'file b/data/leaky.log' },
    ]);
    board.output.push(`a line with ${TOKEN}`);
    const hits = scanForSecrets({ secrets: [TOKEN], programs: [board], dirs: [] });
    expect(hits).toEqual([{ secret: 0, where: expect.stringMatching(/^output line \d+ of pid/) }]);
    // A line allowed by design is skipped.
    expect(
      scanForSecrets({
        secrets: [TOKEN],
        programs: [board],
        allowLine: (l) => l.startsWith('a line'),
      }),
    ).toEqual([]);
  });
});

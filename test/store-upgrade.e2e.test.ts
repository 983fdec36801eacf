import { cpSync, existsSync, readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startBoard } from '../harness/processes.js';
import { eventually, Recorder, writeBoardConfig } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

/** The tokens of the board that wrote the fixture (test/fixtures/data-before-store/MAKE.mjs.txt). */
const TOKEN = 'fixture-board-token-0123456789'; // secret-scan: token
const REGISTRATION = 'fixture-registration-token-0123'; // secret-scan: token
const FIXTURE = new URL('./fixtures/data-before-store/', import.meta.url).pathname;
const QUEUED = [
  'b03fb429-4d28-4e1a-8f86-1366eae35179',
  '58608233-6aa6-4481-b14a-5608b7a45b76',
  '87efa88e-b884-4651-ac4a-6ceb28426278',
];

interface Entry {
  id: number;
  op: string;
  target: string;
  outcome: string;
  detail: string;
}

/**
 * A data directory written by a board that kept its state in files, before the store
 * (journal.jsonl, queue.jsonl with ids and delivered flags, announced.json, silences.json,
 * notify-pending.json, history.db), is imported once into the store at the first start of this
 * version; nothing is lost, the old files are renamed, not deleted, and a second start does not
 * import again.
 */
describe('upgrade: a data directory from before the store is imported into it once', () => {
  const dir = tempDir('panoptes-upgrade-');
  const http = new Recorder();
  const hooks: string[] = [];
  let receiver: Server;
  afterAll(async () => {
    await new Promise((r) => receiver?.close(r));
    dir.cleanup();
  });

  it('keeps the journal, queue, identities, silences, pending notifications and history', async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c.toString();
      });
      req.on('end', () => {
        hooks.push(body);
        res.end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const port = (receiver.address() as { port: number }).port;
    const configDir = writeBoardConfig(dir, 'b', {
      board_token: TOKEN,
      registration_token: REGISTRATION,
      sweep_interval: 0.5,
      stale_after: 3600,
      notify: {
        channels: [{ name: 'hook', url: `http://127.0.0.1:${port}/hook` }],
        rules: [{ events: ['down'], channels: ['hook'] }],
      },
    });
    const data = join(configDir, 'data');
    cpSync(FIXTURE, data, {
      recursive: true,
      filter: (src) => !/README|MAKE/.test(src),
    });
    const board = await startBoard(configDir);
    expect(board.output.some((l) => l.includes('imported the data directory'))).toBe(true);

    // Identities: the three announced machines, down until they report, lab3 still silenced.
    const view = await http.call(`${board.url}/api/board`, { token: TOKEN });
    const machines = (
      view.json as { machines: { name: string; state: string; silenced_until: string | null }[] }
    ).machines;
    expect(machines.map((m) => m.name)).toEqual(['lab1', 'lab2', 'lab3']);
    expect(machines.every((m) => m.state === 'down')).toBe(true);
    expect(machines.find((m) => m.name === 'lab3')?.silenced_until).toBe(
      '2100-01-01T00:00:00.000Z',
    );

    // The journal: its 13 entries, ids and all, and new ones after them.
    const journal = async () =>
      (
        (await http.call(`${board.url}/api/journal?limit=1000`, { token: TOKEN })).json as {
          entries: Entry[];
        }
      ).entries;
    // The 13th is the pending notification's delivery, which the board makes once it is up.
    const entries = await eventually(async () => {
      const all = await journal();
      return all.filter((e) => e.id <= 13).length === 13 ? all : undefined;
    }, 'the 12 imported entries and the delivery of the pending notification');
    const old = entries.filter((e) => e.id <= 13);
    expect(old.map((e) => e.id).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 13 }, (_, i) => i + 1),
    );
    expect(old.find((e) => e.id === 8)?.detail).toContain('rack move');

    // The queue: each action still queued (handed over at the next report, with its id), or
    // journaled as expired if the fixture is older than a day: never lost.
    const expired = (await journal()).filter((e) => e.outcome === 'expired').map((e) => e.detail);
    const report = await http.call(`${board.url}/api/report`, {
      method: 'POST',
      token: REGISTRATION,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'lab1', location: 'http://127.0.0.1:1/lab1' }),
    });
    expect(report.status).toBe(200);
    const handed = (report.json as { actions: { id: string }[] }).actions.map((a) => a.id);
    for (const id of QUEUED.slice(0, 2)) {
      expect(handed.includes(id) || expired.some((d) => d.includes(id))).toBe(true);
    }

    // The notification pending at the old board's stop is delivered by this one.
    await eventually(async () => (hooks.length > 0 ? true : undefined), 'the kept delivery');
    expect(hooks[0]).toContain('lab1');
    expect(hooks[0]).toContain('lab2 is down');

    // History as it was: lab1's state changes from the old board.
    const events = await http.call(`${board.url}/api/machines/lab1/events?limit=50`, {
      token: TOKEN,
    });
    const ats = (events.json as { events: { at: string; state: string }[] }).events;
    expect(
      ats.some((e) => e.at === new Date(1795561999345).toISOString() && e.state === 'down'),
    ).toBe(true);

    // Old files renamed, not deleted; the store's file beside history.db.
    const files = readdirSync(data);
    for (const f of [
      'journal.jsonl',
      'queue.jsonl',
      'announced.json',
      'silences.json',
      'notify-pending.json',
    ]) {
      expect(files).toContain(`${f}.imported`);
      expect(files).not.toContain(f);
    }
    expect(files).toContain('state.db');
    expect((await board.stop()).code).toBe(0);

    // A second start imports nothing and has the same journal (plus what was added since).
    const again = await startBoard(configDir);
    expect(again.output.some((l) => l.includes('imported the data directory'))).toBe(false);
    const second = (
      (await http.call(`${again.url}/api/journal?limit=1000`, { token: TOKEN })).json as {
        entries: Entry[];
      }
    ).entries;
    expect(second.filter((e) => e.id <= 13)).toHaveLength(13);
    expect(new Set(second.map((e) => e.id)).size).toBe(second.length);
    expect(existsSync(join(data, 'journal.jsonl'))).toBe(false);
    await again.stop();
  }, 60_000);

  scanForSecretsAfterAll(() => ({ secrets: [TOKEN, REGISTRATION], dirs: [dir.path] }));
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type RunningProgram, startBoard } from '../harness/processes.js';
import { eventually, Recorder, writeBoardConfig } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'live-select-token-4e6a8c0b2d'; // secret-scan: token
const REGISTRATION = 'live-select-reg-5f7b9d1c3e'; // secret-scan: token

scanForSecretsAfterAll(() => ({ secrets: [TOKEN, REGISTRATION] }));

interface Message {
  type: string;
  name?: string;
  detail?: string;
  machine?: { name: string; labels: Record<string, string> };
  board?: { machines: { name: string }[] };
}

/** A live-feed client that keeps every message it was sent. */
class Feed {
  readonly messages: Message[] = [];
  constructor(readonly socket: WebSocket) {
    socket.on('message', (m) => this.messages.push(JSON.parse(String(m)) as Message));
  }
  /** The first message from `from` on that `check` accepts. */
  next(check: (m: Message) => boolean, from: number, what: string): Promise<Message> {
    return eventually(async () => this.messages.slice(from).find(check), what, 10_000);
  }
  /** The names in the last board message. */
  boardNames(): string[] {
    const last = this.messages.filter((m) => m.type === 'board').at(-1);
    return (last?.board?.machines ?? []).map((m) => m.name).sort();
  }
}

/**
 * The live feed with a selection, on a real board over a real WebSocket: only the selected
 * machines are sent; one whose labels come to match is sent, one whose labels stop matching
 * gets `left` (not `removed`); a client changes its selection without reconnecting; a bad
 * selector is refused at the handshake (422) or answered with an error naming the position.
 */
describe('the live feed sends only the machines a client selects', () => {
  const dir = tempDir('panoptes-live-select-');
  const http = new Recorder();
  let board: RunningProgram;
  const feeds: WebSocket[] = [];

  const report = (name: string, extra: Record<string, unknown> = {}) =>
    http.call(`${board.url}/api/report`, {
      method: 'POST',
      token: REGISTRATION,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name, location: `http://${name}.example:8701`, ...extra }),
    });
  const putLabels = (name: string, labels: Record<string, string>) =>
    http.call(`${board.url}/api/machines/${name}/labels`, {
      method: 'PUT',
      token: TOKEN,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ labels }),
    });
  const open = async (query: string): Promise<Feed> => {
    const socket = new WebSocket(
      `${board.url.replace('http', 'ws')}/api/live?token=${TOKEN}${query}`,
    );
    feeds.push(socket);
    const feed = new Feed(socket);
    await feed.next((m) => m.type === 'board', 0, 'the board message');
    return feed;
  };

  beforeAll(async () => {
    board = await startBoard(
      writeBoardConfig(dir, 'b', { board_token: TOKEN, registration_token: REGISTRATION }),
    );
    for (const [name, site] of [
      ['fra1', 'fra'],
      ['fra2', 'fra'],
      ['ams1', 'ams'],
    ] as const) {
      expect((await report(name)).status).toBe(200);
      expect((await putLabels(name, { site })).status).toBe(200);
    }
  }, 60_000);
  afterAll(async () => {
    for (const socket of feeds) socket.terminate();
    await board?.stop();
    dir.cleanup();
  });

  it('site=fra: only fra machines; one relabelled into it is sent, one out of it gets left', async () => {
    const feed = await open(`&selector=${encodeURIComponent('site=fra')}`);
    expect(feed.boardNames()).toEqual(['fra1', 'fra2']);
    const everything = await open('');
    expect(everything.boardNames()).toEqual(['ams1', 'fra1', 'fra2']);

    // A report from a machine not selected is not sent; one from a selected machine is.
    let from = feed.messages.length;
    expect((await report('ams1')).status).toBe(200);
    expect((await report('fra1')).status).toBe(200);
    await feed.next((m) => m.machine?.name === 'fra1', from, 'fra1 reported');
    await everything.next((m) => m.machine?.name === 'ams1', 0, 'ams1 on the unselected feed');
    expect(feed.messages.slice(from).some((m) => m.machine?.name === 'ams1')).toBe(false);

    // ams1 relabelled into the selection: its machine message arrives.
    from = feed.messages.length;
    expect((await putLabels('ams1', { site: 'fra' })).status).toBe(200);
    const joined = await feed.next((m) => m.machine?.name === 'ams1', from, 'ams1 joined');
    expect(joined.machine?.labels).toEqual({ site: 'fra' });

    // And out of it again: left (it is still on the board), then nothing more of it.
    from = feed.messages.length;
    expect((await putLabels('ams1', { site: 'ams' })).status).toBe(200);
    await feed.next((m) => m.type === 'left' && m.name === 'ams1', from, 'ams1 left');
    expect(
      feed.messages.slice(from).filter((m) => m.name === 'ams1' || m.machine?.name === 'ams1'),
    ).toEqual([{ type: 'left', name: 'ams1' }]);
    from = feed.messages.length;
    expect((await report('ams1')).status).toBe(200);
    expect((await report('fra2')).status).toBe(200);
    await feed.next((m) => m.machine?.name === 'fra2', from, 'fra2 reported');
    expect(
      feed.messages.slice(from).some((m) => m.machine?.name === 'ams1' || m.name === 'ams1'),
    ).toBe(false);
    // The unselected feed never gets left.
    expect(everything.messages.some((m) => m.type === 'left')).toBe(false);

    // A forgotten selected machine is removed; a forgotten unselected one is not mentioned.
    from = feed.messages.length;
    expect((await report('fra3')).status).toBe(200);
    expect(
      (await http.call(`${board.url}/api/machines/ams1`, { method: 'DELETE', token: TOKEN }))
        .status,
    ).toBe(200);
    expect(
      (await http.call(`${board.url}/api/machines/fra2`, { method: 'DELETE', token: TOKEN }))
        .status,
    ).toBe(200);
    await feed.next((m) => m.type === 'removed' && m.name === 'fra2', from, 'fra2 removed');
    await everything.next((m) => m.type === 'removed' && m.name === 'ams1', 0, 'ams1 removed');
    expect(feed.messages.some((m) => m.name === 'ams1' && m.type === 'removed')).toBe(false);
  }, 60_000);

  it('a select message changes the selection without reconnecting; a bad one is an error, the selection kept', async () => {
    const feed = await open('');
    let from = feed.messages.length;
    feed.socket.send(JSON.stringify({ type: 'select', selector: 'name in (fra1)' }));
    await feed.next((m) => m.type === 'board', from, 'the selected board');
    expect(feed.boardNames()).toEqual(['fra1']);

    from = feed.messages.length;
    feed.socket.send(JSON.stringify({ type: 'select', selector: 'site in (fra' }));
    const error = await feed.next((m) => m.type === 'error', from, 'the error');
    expect(error.detail).toMatch(/^selector: .* at position 12$/);
    // Still the old selection: fra3 (not selected) reporting is not sent, fra1 is.
    expect((await report('fra3')).status).toBe(200);
    expect((await report('fra1')).status).toBe(200);
    await feed.next((m) => m.machine?.name === 'fra1', from, 'fra1 reported');
    expect(feed.messages.slice(from).some((m) => m.machine?.name === 'fra3')).toBe(false);

    // The empty selector is everything again; other messages are still ignored.
    from = feed.messages.length;
    feed.socket.send('not json');
    feed.socket.send(JSON.stringify({ type: 'hello' }));
    feed.socket.send(JSON.stringify({ type: 'select', selector: '' }));
    await feed.next((m) => m.type === 'board', from, 'the whole board');
    expect(feed.boardNames()).toContain('fra3');
    expect(feed.messages.slice(from).map((m) => m.type)).toEqual(['board']);
  }, 30_000);

  it('a bad ?selector= refuses the handshake with 422 naming the position', async () => {
    const bad = new WebSocket(
      `${board.url.replace('http', 'ws')}/api/live?token=${TOKEN}&selector=${encodeURIComponent('site=fra,=x')}`,
    );
    const answer = await new Promise<{ status: number; body: string }>((resolve) => {
      bad.on('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (c: Buffer) => {
          body += String(c);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      bad.on('open', () => resolve({ status: 101, body: '' }));
    });
    expect(answer.status).toBe(422);
    const detail = (
      JSON.parse(answer.body) as {
        detail: { loc: string[]; msg: string; ctx: { position: number } }[];
      }
    ).detail;
    expect(detail[0]?.loc).toEqual(['query', 'selector']);
    expect(detail[0]?.ctx.position).toBe(9);
    expect(detail[0]?.msg).toContain('at position 9');
    // Without the token it is still 401, whatever the selector.
    const anonymous = new WebSocket(
      `${board.url.replace('http', 'ws')}/api/live?selector=${encodeURIComponent('=')}`,
    );
    const status = await new Promise<number>((resolve) => {
      anonymous.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      anonymous.on('open', () => resolve(101));
    });
    expect(status).toBe(401);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { TOKEN } from './helpers/board-kit.js';
import { type ScopedBoard, scopedBoard } from './helpers/scoped-board.js';
import { tempDir } from './helpers/tmp.js';

const PROD = [{ role: 'viewer' as const, selector: 'env=prod' }];
const WHO = { word: 'board' as const, actor: { kind: 'board_token' as const, name: 'board' } };

interface Feed {
  socket: WebSocket;
  messages: Record<string, unknown>[];
  closed: Promise<number>;
}

describe('the live feed of a scoped actor (an in-process board on 127.0.0.1)', () => {
  const dir = tempDir('panoptes-scope-live-');
  let s: ScopedBoard;

  beforeAll(async () => {
    s = await scopedBoard(dir);
    await s.sweep();
  });
  afterAll(async () => {
    await s?.b.close();
    dir.cleanup();
  });

  const open = (headers: Record<string, string>): Promise<Feed> =>
    new Promise((resolve, reject) => {
      const socket = new WebSocket(`${s.url.replace('http', 'ws')}/api/live`, { headers });
      const messages: Record<string, unknown>[] = [];
      const closed = new Promise<number>((done) => socket.on('close', (code) => done(code)));
      socket.on('message', (data) => {
        messages.push(JSON.parse(String(data)) as Record<string, unknown>);
        if (messages.length === 1) resolve({ socket, messages, closed });
      });
      socket.on('unexpected-response', (_req, res) => reject(new Error(`${res.statusCode}`)));
      socket.on('error', reject);
    });
  const settle = () => new Promise((r) => setTimeout(r, 400));

  it('sends only machines and journal entries in scope, from the first board message on', async () => {
    const cookie = await s.session('pat', PROD);
    const feed = await open({ cookie, origin: s.url });
    const whole = await open({ authorization: `Bearer ${TOKEN}` });
    const board = feed.messages[0] as { type: string; board: { machines: { name: string }[] } };
    expect(board.type).toBe('board');
    expect(board.board.machines.map((m) => m.name)).toEqual(['db1', 'web1']);
    await s.sweep(0.75);
    await s.b.board.journal.record({
      who: WHO,
      op: 'do',
      target: 'web2/x/stop',
      outcome: 'failed',
      status: 502,
      detail: '',
    });
    await s.b.board.journal.record({
      who: WHO,
      op: 'do',
      target: 'web1/x/stop',
      outcome: 'failed',
      status: 502,
      detail: '',
    });
    await s.b.board.journal.record({
      who: WHO,
      op: 'notify',
      target: 'ops',
      outcome: 'delivered',
      status: 200,
      detail: '',
    });
    await s.b.access.note(WHO, 'pat', 'signed_in', null, 'password');
    await settle();
    const seen = (f: Feed) =>
      f.messages.slice(1).map((m) => {
        if (m.type === 'machine') return `machine ${(m.machine as { name: string }).name}`;
        if (m.type === 'journal') return `journal ${(m.entry as { target: string }).target}`;
        return `${m.type}`;
      });
    expect(seen(feed).sort()).toEqual(['journal web1/x/stop', 'machine db1', 'machine web1']);
    expect(JSON.stringify(feed.messages)).not.toContain('web2');
    expect(seen(whole)).toContain('machine web2');
    expect(seen(whole)).toContain('journal web2/x/stop');
    expect(seen(whole)).toContain('journal pat');
    // A selector asked for later narrows within the scope, never past it.
    feed.socket.send(JSON.stringify({ type: 'select', selector: 'env=dev' }));
    await settle();
    const last = feed.messages.at(-1) as { type: string; board: { machines: unknown[] } };
    expect(last.type).toBe('board');
    expect(last.board.machines).toEqual([]);
    feed.socket.close();
    whole.socket.close();
  });

  it('closes a feed whose session is ended, or whose API token is deleted, within a few seconds', async () => {
    const cookie = await s.session('sam', PROD);
    const feed = await open({ cookie, origin: s.url });
    const token = await s.token('script', PROD);
    const byToken = await open({ authorization: `Bearer ${token}` });
    const whole = await open({ authorization: `Bearer ${TOKEN}` });
    const started = Date.now();
    await s.b.access.sessions.end(s.b.access.sessions.idOf(cookie.slice('panoptes='.length)));
    const [made] = (await s.b.access.tokens.list()).filter((t) => t.body.name === 'script');
    await s.b.access.tokens.remove(made?.body.id ?? '');
    expect(await feed.closed).toBe(1008);
    expect(await byToken.closed).toBe(1008);
    expect(Date.now() - started).toBeLessThan(3500);
    expect(whole.socket.readyState).toBe(WebSocket.OPEN);
    whole.socket.close();
  });

  it('a new board token (a reload) closes the old token’s feeds, not those of API tokens or sessions', async () => {
    const token = await s.token('kept', PROD);
    const byToken = await open({ authorization: `Bearer ${token}` });
    const cookie = await s.session('ned', PROD);
    const bySession = await open({ cookie, origin: s.url });
    const old = await open({ authorization: `Bearer ${TOKEN}` });
    const settings = s.b.settings();
    s.b.applySettings({ ...settings, boardToken: 'another-board-token-0123456789' });
    expect(await old.closed).toBe(1008);
    await new Promise((r) => setTimeout(r, 2500)); // past a recheck of the others
    expect(byToken.socket.readyState).toBe(WebSocket.OPEN);
    expect(bySession.socket.readyState).toBe(WebSocket.OPEN);
    byToken.socket.close();
    bySession.socket.close();
    s.b.applySettings(settings);
  });
});

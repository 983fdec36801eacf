import { describe, expect, it } from 'vitest';
import { testBoard } from '../../../test/helpers/board-kit.js';
import { keyProof } from '../../shared/wire/key-proof.js';
import { boardSettings } from '../config/config.js';
import { BOARD_WHO, registrationWho } from './who.js';

const KEY = 'machine-key-0123456789';
const TOKEN = 'board-token-0123456789';
const web1 = { name: 'web1', url: 'http://127.0.0.1:1', key: KEY };
const web2 = { name: 'web2', url: 'http://127.0.0.1:2', key: KEY };

function names(t: ReturnType<typeof testBoard>): string[] {
  const view = JSON.parse(t.registry.view().bytes.toString('utf8'));
  return view.machines.map((m: { name: string }) => m.name);
}

const settings = (raw: Partial<Parameters<typeof boardSettings>[0]>) =>
  boardSettings({ board_token: TOKEN, ...raw }, '/etc/panoptes/board.yaml', '/etc/panoptes');

describe('Board.reconfigure (a reload)', () => {
  it('adds and removes configured machines; the next sweep polls exactly the new list', async () => {
    const t = testBoard({ machines: [web1] });
    const changed = t.board.reconfigure(settings({ machines: [web2] }));
    expect(changed).toEqual({ added: ['web2'], removed: ['web1'] });
    expect(names(t)).toEqual(['web2']);
    expect(t.removed).toEqual(['web1']);
    expect(t.changes).toContain('web2');
    await t.board.sweep();
    expect(t.client.polls.map((p) => p.url)).toEqual(['http://127.0.0.1:2']);
  });

  it('moves a configured machine whose location changed, and keeps its state', async () => {
    const t = testBoard({ machines: [web1] });
    t.client.overviews.set(web1.url, { ok: true, overview: { name: 'web1' } });
    await t.board.sweep();
    t.board.reconfigure(settings({ machines: [{ ...web1, location: 'https://web1.example/' }] }));
    const m = t.registry.get('web1');
    expect(m).toMatchObject({ state: 'up', location: 'https://web1.example/' });
  });

  it('an announced machine named in the new config becomes the configured one', async () => {
    const t = testBoard({ registration_token: 'registration-0123456789' });
    await t.board.report(registrationWho(''), { name: 'web1', location: 'http://127.0.0.1:9/' });
    expect(t.registry.get('web1')?.origin).toBe('announced');
    t.board.reconfigure(settings({ machines: [web1] }));
    expect(t.registry.get('web1')?.origin).toBe('configured');
    expect(t.registry.announced()).toEqual([]);
  });

  it('uses new announced keys from the next request on, once a report proves them', async () => {
    const t = testBoard({ registration_token: 'registration-0123456789' });
    await t.board.report(registrationWho(''), { name: 'lab1', location: 'http://127.0.0.1:8/' });
    const before = await t.board.doAction(BOARD_WHO, 'lab1', 'backup', 'start');
    expect(before.body).toMatchObject({ queued: true });
    expect(t.client.relays).toEqual([]);
    t.board.reconfigure(settings({ announced_keys: { lab1: KEY } }));
    // The location no report proved with the key is forgotten, not trusted with it.
    expect(t.registry.get('lab1')).toBeUndefined();
    const unproved = await t.board.doAction(BOARD_WHO, 'lab1', 'backup', 'start');
    expect(unproved.body).toMatchObject({ queued: true });
    expect(t.client.relays).toEqual([]);
    const location = 'http://127.0.0.1:9/';
    const proved = await t.board.report(registrationWho(''), {
      name: 'lab1',
      location,
      key_proof: keyProof(KEY, 'lab1', location),
    });
    expect(proved.status).toBe(200);
    await t.board.doAction(BOARD_WHO, 'lab1', 'backup', 'start');
    expect(t.client.relays.map((r) => r.target)).toEqual([
      { url: 'http://127.0.0.1:9', key: KEY, ca: null },
    ]);
  });

  it('a new key for a proven machine waits for a report proving it', async () => {
    const t = testBoard({ announced_keys: { lab1: KEY } });
    const location = 'http://127.0.0.1:9/';
    const proof = { name: 'lab1', location, key_proof: keyProof(KEY, 'lab1', location) };
    expect((await t.board.report(registrationWho(''), proof)).status).toBe(200);
    t.board.reconfigure(settings({ announced_keys: { lab1: `${KEY}-new` } }));
    expect(t.registry.get('lab1')?.verified).toBe(false);
    const answer = await t.board.doAction(BOARD_WHO, 'lab1', 'backup', 'start');
    expect(answer.body).toMatchObject({ queued: true });
    expect(t.client.relays).toEqual([]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanForSecrets } from './helpers/secret-scan.js';
import { BOARD_TOKEN, startTokenBoard, type TokenBoard } from './helpers/token-board.js';

interface Made {
  id: string;
  name: string;
  role: string;
  selector: string | null;
  expires_at: string | null;
  token: string;
}
interface Listed {
  id: string;
  name: string;
  role: string;
  selector: string | null;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
}
interface Entry {
  op: string;
  target: string;
  outcome: string;
  status: number | null;
  detail: string;
  actor: { kind: string; name: string };
}

/**
 * API tokens over real HTTP (an in-process board on 127.0.0.1, a manual clock): made by the
 * board token and by a person, never wider than the maker, working through the guard in
 * their scope, expiring, deleted, dying with their person, and never in an answer but the 201.
 */
describe('API tokens', () => {
  let t: TokenBoard;
  /** Every token made, and every session secret, for the final scan. */
  const secrets: string[] = [BOARD_TOKEN];
  const made: string[] = [];

  const make = async (
    body: Record<string, unknown>,
    token: string | null = BOARD_TOKEN,
    headers = {},
  ) => {
    const r = await t.call('/api/tokens', { method: 'POST', body, token, headers });
    if (r.status === 201) {
      const m = r.json as Made;
      secrets.push(m.token);
      made.push(r.text);
    }
    return r;
  };
  const list = async (token: string | null = BOARD_TOKEN, headers = {}) =>
    ((await t.call('/api/tokens', { token, headers })).json as { tokens: Listed[] }).tokens;
  const journal = async (query = '') =>
    ((await t.call(`/api/journal?limit=10000${query}`)).json as { entries: Entry[] }).entries;

  beforeAll(async () => {
    t = await startTokenBoard();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('the board token makes one: the token (pnp_) in the 201 only, listed without it, journaled by name', async () => {
    const r = await make({ name: 'reader', role: 'viewer' });
    expect(r.status).toBe(201);
    const m = r.json as Made;
    expect(m).toMatchObject({ name: 'reader', role: 'viewer', selector: null, expires_at: null });
    expect(m.token).toMatch(/^pnp_[A-Za-z0-9_-]{40,}$/);
    const listed = await list();
    expect(listed.find((x) => x.id === m.id)).toEqual({
      id: m.id,
      name: 'reader',
      role: 'viewer',
      selector: null,
      created_at: '2026-03-01T00:00:01.000Z',
      expires_at: null,
      last_used_at: null,
    });
    expect(JSON.stringify(listed)).not.toContain(m.token);
    const entry = (await journal()).find((e) => e.op === 'auth' && e.target === 'reader');
    expect(entry).toMatchObject({
      outcome: 'created',
      status: 201,
      actor: { kind: 'board_token', name: 'board_token' },
    });
    expect(entry?.detail).toContain(m.id);
    // The store keeps its digest, never the token.
    const kept = await t.b.access.tokens.list();
    expect(JSON.stringify(kept)).not.toContain(m.token);
    expect(kept.some((k) => k.digest.length === 64)).toBe(true);
  });

  it('a bad selector is a 422 naming its position; expires_in_s is 1 to 365 days; a name is unique', async () => {
    const bad = await make({ name: 'bad', role: 'viewer', selector: 'env=prod,,x' });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.json)).toContain('"position"');
    expect((bad.json as { detail: { loc: string[] }[] }).detail[0]?.loc).toEqual([
      'body',
      'selector',
    ]);
    expect((await make({ name: 'z', role: 'viewer', expires_in_s: 0 })).status).toBe(422);
    expect((await make({ name: 'z', role: 'viewer', expires_in_s: 365 * 86_400 + 1 })).status).toBe(
      422,
    );
    expect((await make({ name: 'z', role: 'root' })).status).toBe(422);
    expect((await make({ name: 'has space', role: 'viewer' })).status).toBe(422);
    const twice = await make({ name: 'reader', role: 'viewer' });
    expect(twice.status).toBe(409);
    expect(twice.json).toEqual({
      detail: "A token named 'reader' exists; delete it or pick another name",
    });
  });

  it('a viewer token reads the board, and POST /api/do is 403', async () => {
    const { token } = (await make({ name: 'look', role: 'viewer' })).json as Made;
    const board = await t.call('/api/board', { token });
    expect(board.status).toBe(200);
    expect(JSON.stringify(board.json)).toContain('web1');
    const me = await t.call('/api/me', { token });
    expect(me.json).toEqual({
      name: 'look',
      via: 'token',
      bindings: [{ role: 'viewer', selector: null }],
    });
    const act = await t.call('/api/do/web1/backup/start', { method: 'POST', token });
    expect(act.status).toBe(403);
    expect(act.json).toEqual({ detail: 'This needs the operator role' });
    expect(t.client.relays).toHaveLength(0);
  });

  it('an operator token scoped env=prod acts on web1 (prod) and gets the unknown-machine 404 for db1 (staging)', async () => {
    const { token } = (await make({ name: 'deploy', role: 'operator', selector: 'env=prod' }))
      .json as Made;
    const prod = await t.call('/api/do/web1/backup/start', { method: 'POST', token });
    expect(prod.status).toBe(200);
    expect(t.client.relays.map((r) => r.target.url)).toEqual(['http://web1.test:8701']);
    const staging = await t.call('/api/do/db1/backup/start', { method: 'POST', token });
    const nobody = await t.call('/api/do/nosuch/backup/start', { method: 'POST', token });
    expect(staging.status).toBe(404);
    expect(staging.json).toEqual({ detail: "No machine named 'db1' on this board" });
    expect(nobody.json).toEqual({ detail: "No machine named 'nosuch' on this board" });
    expect(t.client.relays).toHaveLength(1);
    // What it did is journaled under its name.
    const done = (await journal()).find((e) => e.op === 'do' && e.target === 'web1/backup/start');
    expect(done?.actor).toEqual({ kind: 'token', name: 'deploy' });
  });

  it('an expired token is 401; a deleted one is 401 at once; last_used_at moves', async () => {
    const short = (await make({ name: 'brief', role: 'viewer', expires_in_s: 30 })).json as Made;
    expect(short.expires_at).toBe(new Date(t.clock.now() + 30_000).toISOString());
    expect((await t.call('/api/board', { token: short.token })).status).toBe(200);
    t.clock.advance(30_000);
    expect((await t.call('/api/board', { token: short.token })).status).toBe(401);
    expect((await list()).some((x) => x.name === 'brief')).toBe(false);

    const gone = (await make({ name: 'gone', role: 'viewer' })).json as Made;
    expect((await t.call('/api/board', { token: gone.token })).status).toBe(200);
    const first = (await list()).find((x) => x.id === gone.id)?.last_used_at;
    expect(first).toBe(new Date(t.clock.now()).toISOString());
    t.clock.advance(61_000);
    expect((await t.call('/api/board', { token: gone.token })).status).toBe(200);
    const second = (await list()).find((x) => x.id === gone.id)?.last_used_at;
    expect(second).toBe(new Date(t.clock.now()).toISOString());
    expect(second).not.toBe(first);
    const del = await t.call(`/api/tokens/${gone.id}`, { method: 'DELETE' });
    expect(del.status).toBe(200);
    expect(del.json).toEqual({ id: gone.id });
    expect((await t.call('/api/board', { token: gone.token })).status).toBe(401);
    expect((await t.call(`/api/tokens/${gone.id}`, { method: 'DELETE' })).status).toBe(404);
    expect(
      (await journal()).find((e) => e.target === 'gone' && e.outcome === 'deleted'),
    ).toBeTruthy();
  });

  it('a person makes tokens no wider than their bindings, sees and deletes only their own, and their tokens die with them', async () => {
    const access = t.b.access;
    await access.people.put({
      name: 'ada',
      source: 'local',
      bindings: [{ role: 'operator', selector: 'env=prod' }],
      created_at: t.clock.now(),
      signed_in_at: null,
    });
    const secret = await access.sessions.start('ada', 'password', [
      { role: 'operator', selector: 'env=prod' },
    ]);
    secrets.push(secret);
    const browser = { cookie: `panoptes=${secret}`, origin: t.url };
    const wider = await make({ name: 'ada-all', role: 'operator' }, null, browser);
    expect(wider.status).toBe(403);
    expect(wider.json).toEqual({
      detail: 'A token cannot hold more than its maker: operator over every machine',
    });
    expect(
      (await make({ name: 'ada-admin', role: 'admin', selector: 'env=prod' }, null, browser))
        .status,
    ).toBe(403);
    const refused = (await journal()).find((e) => e.target === 'ada-all');
    expect(refused).toMatchObject({
      outcome: 'refused',
      status: 403,
      actor: { kind: 'person', name: 'ada' },
    });
    // From another site, the cookie does not make one.
    expect(
      (
        await make({ name: 'ada-x', role: 'viewer' }, null, {
          ...browser,
          origin: 'https://evil.example',
        })
      ).status,
    ).toBe(403);

    const ok = await make(
      { name: 'ada-ops', role: 'operator', selector: 'env=prod,tier=web' },
      null,
      browser,
    );
    expect(ok.status).toBe(201);
    const ops = ok.json as Made;
    const mine = await list(null, browser);
    expect(mine.map((x) => x.name)).toEqual(['ada-ops']);
    // The board's tokens are someone else's: as absent as a token that never was.
    const boards = (await list()).find((x) => x.name === 'reader');
    expect(
      (
        await t.call(`/api/tokens/${boards?.id}`, {
          method: 'DELETE',
          token: null,
          headers: browser,
        })
      ).status,
    ).toBe(404);

    // A token makes tokens no wider than itself, for the same person.
    expect(
      (await make({ name: 'ada-wide', role: 'operator', selector: 'env=prod' }, ops.token)).status,
    ).toBe(403);
    const child = await make(
      { name: 'ada-child', role: 'viewer', selector: 'env=prod,tier=web' },
      ops.token,
    );
    expect(child.status).toBe(201);
    expect((await list(ops.token)).map((x) => x.name).sort()).toEqual(['ada-child', 'ada-ops']);
    expect((await journal()).find((e) => e.target === 'ada-child')?.actor).toEqual({
      kind: 'token',
      name: 'ada-ops',
    });
    const childToken = (child.json as Made).token;
    expect((await t.call('/api/board', { token: childToken })).status).toBe(200);

    await access.removePerson('ada');
    expect((await t.call('/api/board', { token: ops.token })).status).toBe(401);
    expect((await t.call('/api/board', { token: childToken })).status).toBe(401);
    expect((await t.call('/api/board', { token: null, headers: browser })).status).toBe(401);
  });

  it("a person's token stops working when the person no longer holds what it holds", async () => {
    const access = t.b.access;
    const person = (role: 'operator' | 'viewer') => ({
      name: 'bo',
      source: 'local' as const,
      bindings: [{ role, selector: null }],
      created_at: t.clock.now(),
      signed_in_at: null,
    });
    await access.people.put(person('operator'));
    const secret = await access.sessions.start('bo', 'password', person('operator').bindings);
    secrets.push(secret);
    const browser = { cookie: `panoptes=${secret}`, origin: t.url };
    const r = await make({ name: 'bo-ops', role: 'operator' }, null, browser);
    expect(r.status).toBe(201);
    const { token } = r.json as Made;
    expect((await t.call('/api/board', { token })).status).toBe(200);
    await access.people.put(person('viewer'));
    // Other lookups may hold the old answer for 2 s (as on other boards).
    t.clock.advance(2001);
    expect((await t.call('/api/board', { token })).status).toBe(401);
  });

  it('GET /api/journal?actor=kind:name holds only what that actor did; a bad kind is a 422', async () => {
    const deploy = await journal('&actor=token:deploy');
    expect(deploy.length).toBeGreaterThan(0);
    expect(deploy.every((e) => e.actor.kind === 'token' && e.actor.name === 'deploy')).toBe(true);
    expect((await journal('&actor=person:ada')).map((e) => e.target)).toContain('ada-all');
    const board = await journal('&actor=board_token');
    expect(board.every((e) => e.actor.kind === 'board_token')).toBe(true);
    expect(board.some((e) => e.target === 'reader')).toBe(true);
    expect(await journal('&actor=token:nobody')).toEqual([]);
    const one = await t.call('/api/journal?actor=board_token&limit=1');
    expect((one.json as { entries: Entry[] }).entries).toHaveLength(1);
    const bad = await t.call('/api/journal?actor=root:me');
    expect(bad.status).toBe(422);
    expect((bad.json as { detail: { loc: string[] }[] }).detail[0]?.loc).toEqual([
      'query',
      'actor',
    ]);
  });

  it('no token or session secret in any log line, journal entry, error or answer but its own 201', async () => {
    // Wrong ones too: a pnp_ token that was never made, a cookie that is no session.
    const wrong = `pnp_${'x'.repeat(43)}`;
    const wrongCookie = 'y'.repeat(43);
    secrets.push(wrong, wrongCookie);
    expect((await t.call('/api/board', { token: wrong })).status).toBe(401);
    expect((await t.call(`/api/board?token=${wrong}`, { token: null })).status).toBe(401);
    expect(
      (await t.call('/api/board', { token: null, headers: { cookie: `panoptes=${wrongCookie}` } }))
        .status,
    ).toBe(401);
    const entries = JSON.stringify(await journal());
    expect(t.logs.length).toBeGreaterThan(0);
    const hits = scanForSecrets({
      secrets,
      texts: [entries, ...t.logs],
      programs: [],
      // A 201 holds its own token by design (and nothing else).
      allowText: (text) => made.includes(text),
    });
    expect(hits).toEqual([]);
    for (const [i, text] of made.entries()) {
      const own = (JSON.parse(text) as Made).token;
      for (const s of secrets) if (s !== own) expect(text.includes(s), `201 #${i}`).toBe(false);
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PgServer, startPostgres } from '../harness/postgres.js';
import { type RunningProgram, startAgent, startBoard } from '../harness/processes.js';
import { BOARD_KEY, OPERATOR, REGISTRATION, SECRETS } from './helpers/agent-fixtures.js';
import {
  eventually,
  Recorder,
  ringBell,
  writeAgentConfig,
  writeBoardConfig,
} from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'inbox-e2e-board-token-6d2b9f1c3a'; // secret-scan: token

interface Row {
  machine: string;
  session: string;
  why: string;
  text: string;
  at: string;
  waiting_s: number;
  acknowledged_at: string | null;
  machine_state: string;
}
interface Page {
  sessions: Row[];
  total: number;
}

const WEBSHOP = 'claude · webshop';
const path = (machine: string, session: string) =>
  `/api/sessions/${encodeURIComponent(machine)}/${encodeURIComponent(session)}/ack`;

/**
 * The attention inbox end to end: a real agent rings bells (POST /api/bell with its token), a
 * real board polls it and lists the sessions of the fleet; an acknowledgement is journaled,
 * survives a restart of the board, and shows on every board sharing a PostgreSQL store.
 */
describe('the attention inbox', () => {
  const dir = tempDir('panoptes-inbox-');
  const http = new Recorder();
  let agent: RunningProgram;
  let pg: PgServer | undefined;
  const boards: RunningProgram[] = [];

  const ring = async (session: string, why: string, text: string) => {
    expect(await ringBell(http, agent.url, OPERATOR, { session, why, text })).toBe(200);
  };
  const list = async (board: RunningProgram, query = '') => {
    const r = await http.call(`${board.url}/api/sessions${query}`, { token: TOKEN });
    expect(r.status).toBe(200);
    return r.json as Page;
  };
  const names = (page: Page) => page.sessions.map((s) => s.session);
  const ack = (board: RunningProgram, machine: string, session: string) =>
    http.call(`${board.url}${path(machine, session)}`, { method: 'POST', token: TOKEN });
  const boardConfig = (name: string, extra: Record<string, unknown> = {}) =>
    writeBoardConfig(dir, name, {
      board_token: TOKEN,
      registration_token: REGISTRATION,
      sweep_interval: 0.5,
      machines: [{ name: 'web1', url: agent.url, key: BOARD_KEY }],
      history: false,
      ...extra,
    });
  const start = async (config: string) => {
    const board = await startBoard(config);
    boards.push(board);
    return board;
  };

  beforeAll(async () => {
    agent = await startAgent(
      writeAgentConfig(dir, 'web1', {
        name: 'web1',
        token: OPERATOR,
        board_key: BOARD_KEY,
        data_dir: `${dir.path}/web1-data`,
      }),
    );
  }, 60_000);
  afterAll(async () => {
    for (const b of boards) await b.stop().catch(() => undefined);
    await agent?.stop();
    pg?.destroy();
    dir.cleanup();
  });

  it('lists open sessions first, longest waiting first, then the rest newest first; ?state=open', async () => {
    await ring('build', 'attention', 'Which branch?');
    await ring('deploy', 'finished', 'Deployed');
    await ring(WEBSHOP, 'error', 'Tests failed');
    await ring('docs', 'finished', 'Docs written');
    await ring('review', 'attention', 'Review the diff');
    const board = await start(boardConfig('one'));
    const page = await eventually(async () => {
      const p = await list(board);
      return p.total === 5 ? p : undefined;
    }, 'the five sessions of web1');
    expect(names(page)).toEqual(['build', WEBSHOP, 'review', 'docs', 'deploy']);
    expect(page.sessions[1]).toMatchObject({
      machine: 'web1',
      session: WEBSHOP,
      why: 'error',
      text: 'Tests failed',
      acknowledged_at: null,
      machine_state: 'up',
    });
    for (const s of page.sessions) {
      expect(Number.isInteger(s.waiting_s) && s.waiting_s >= 0).toBe(true);
      expect(Math.abs(Date.now() - Date.parse(s.at))).toBeLessThan(120_000);
    }
    const open = await list(board, '?state=open');
    expect(names(open)).toEqual(['build', WEBSHOP, 'review']);
    expect(open.total).toBe(3);
    const first = await list(board, '?state=open&limit=1');
    expect([names(first), first.total]).toEqual([['build'], 3]);
    const bad = await http.call(`${board.url}/api/sessions?state=new`, { token: TOKEN });
    expect(bad.status).toBe(422);
    expect((bad.json as { detail: { loc: string[]; type: string }[] }).detail[0]).toMatchObject({
      loc: ['query', 'state'],
      type: 'enum',
    });
    const anonymous = await http.call(`${board.url}/api/sessions`);
    expect(anonymous.status).toBe(401);
  });

  it('an ack closes a session (journaled) until it rings again; 404 for an unknown one', async () => {
    const board = boards[0] as RunningProgram;
    const answer = await ack(board, 'web1', WEBSHOP);
    expect(answer.status).toBe(200);
    const body = answer.json as { machine: string; session: string; acknowledged_at: string };
    expect(body).toEqual({
      machine: 'web1',
      session: WEBSHOP,
      acknowledged_at: expect.any(String),
    });
    expect(Math.abs(Date.now() - Date.parse(body.acknowledged_at))).toBeLessThan(60_000);
    expect(names(await list(board, '?state=open'))).toEqual(['build', 'review']);
    const all = await list(board);
    expect(all.sessions.find((s) => s.session === WEBSHOP)?.acknowledged_at).toBe(
      body.acknowledged_at,
    );
    const journal = (await http.call(`${board.url}/api/journal?limit=5`, { token: TOKEN }))
      .json as { entries: { op: string; target: string; outcome: string; who: string }[] };
    expect(journal.entries[0]).toMatchObject({
      op: 'ack',
      target: `web1/${WEBSHOP}`,
      outcome: 'acknowledged',
      who: 'board',
    });

    expect((await ack(board, 'nosuch', WEBSHOP)).status).toBe(404);
    expect((await ack(board, 'web1', 'nosuch')).status).toBe(404);
    expect(
      (
        await http.call(`${board.url}/api/sessions/web1/a%0Ab/ack`, {
          method: 'POST',
          token: TOKEN,
        })
      ).status,
    ).toBe(422);

    // It rings again: open again, at the end (the newest bell waits least).
    await ring(WEBSHOP, 'attention', 'One more question');
    await eventually(async () => {
      const open = names(await list(board, '?state=open'));
      return open.join() === ['build', 'review', WEBSHOP].join() ? true : undefined;
    }, 'the session open again');
  });

  it('an ack survives a restart of the board', async () => {
    const board = boards[0] as RunningProgram;
    const answer = await ack(board, 'web1', 'build');
    expect(answer.status).toBe(200);
    const { acknowledged_at } = answer.json as { acknowledged_at: string };
    await board.stop();
    boards.shift();
    const again = await start(`${dir.path}/one`);
    const page = await eventually(async () => {
      const p = await list(again);
      return p.total === 5 ? p : undefined;
    }, 'web1 polled after the restart');
    expect(page.sessions.find((s) => s.session === 'build')?.acknowledged_at).toBe(acknowledged_at);
    expect(names(await list(again, '?state=open'))).toEqual(['review', WEBSHOP]);
    const journal = (await http.call(`${again.url}/api/journal?limit=20`, { token: TOKEN }))
      .json as { entries: { op: string; target: string }[] };
    expect(journal.entries.filter((e) => e.op === 'ack').map((e) => e.target)).toEqual([
      'web1/build',
      `web1/${WEBSHOP}`,
    ]);
    await again.stop();
    boards.pop();
  }, 60_000);

  it('two boards on one PostgreSQL: an ack given on one shows on the other', async () => {
    pg = await startPostgres();
    const store = await pg.createDatabase('inbox');
    const cluster = { store, failover_after: 2 };
    const a = await start(boardConfig('a', { ...cluster, board_id: 'a' }));
    const b = await start(boardConfig('b', { ...cluster, board_id: 'b' }));
    const bothList = async (session: string) => {
      for (const board of [a, b]) {
        const open = names(await list(board, '?state=open'));
        if (!open.includes(session)) return undefined;
      }
      return true;
    };
    await eventually(() => bothList('review'), 'both boards list the open session', 30_000);
    const answer = await ack(a, 'web1', 'review');
    expect(answer.status).toBe(200);
    const { acknowledged_at } = answer.json as { acknowledged_at: string };
    const seen = await eventually(async () => {
      const row = (await list(b)).sessions.find((s) => s.session === 'review');
      return row?.acknowledged_at === acknowledged_at ? row : undefined;
    }, 'board b sees the ack given on board a');
    expect(seen.machine).toBe('web1');
    expect(names(await list(b, '?state=open'))).not.toContain('review');
    // And back: an ack given on b shows on a.
    expect((await ack(b, 'web1', WEBSHOP)).status).toBe(200);
    await eventually(async () => {
      const open = names(await list(a, '?state=open'));
      return open.includes(WEBSHOP) ? undefined : true;
    }, 'board a sees the ack given on board b');
  }, 90_000);

  scanForSecretsAfterAll(() => ({
    secrets: [TOKEN, ...SECRETS, ...(pg === undefined ? [] : [pg.password])],
    recorders: [http],
    dirs: [dir.path],
  }));
});

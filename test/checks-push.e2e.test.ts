import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startBoard, trackChild } from '../harness/processes.js';
import { eventually, writeBoardConfig } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'push-board-token-3f9a1c7e5b'; // secret-scan: token
const BEAT = 'backup-beat-token-8d2e6a0c4f71'; // secret-scan: token

// The push token is a credential: in no answer, log line or file the board wrote.
scanForSecretsAfterAll(() => ({ secrets: [TOKEN, BEAT] }));

interface Runner {
  machine: string;
  ok: boolean;
  detail: string;
  at: string;
}

describe('push checks: a cron-like curl loop beats, the check goes down when it stops', () => {
  const dir = tempDir('panoptes-push-');
  let board: RunningProgram;
  let loop: ChildProcess | null = null;

  const runner = async (): Promise<Runner | undefined> => {
    const r = await fetch(`${board.url}/api/checks`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const checks = (await r.json()) as { name: string; runners: Runner[] }[];
    return checks.find((c) => c.name === 'backup')?.runners.find((x) => x.machine === '@push');
  };

  beforeAll(async () => {
    board = await startBoard(
      writeBoardConfig(dir, 'b', {
        board_token: TOKEN,
        push: { subject: 'mailto:ops@example.org' },
        checks: [{ name: 'backup', type: 'push', period: '2s', grace: '1s', token: BEAT }],
      }),
    );
  });
  afterAll(async () => {
    try {
      if (loop?.pid !== undefined) process.kill(-loop.pid, 'SIGTERM');
    } catch {
      // stopped by the test already
    }
    await board?.stop();
    dir.cleanup();
  });

  it('takes beats from curl every second, then reports "no beat within 3s" once the loop stops', async () => {
    // curl reads its URL from a file: the token is in no process's arguments.
    const config = dir.write(
      'curl.conf',
      `url = "${board.url}/api/push/${BEAT}?status=up&ms=12"\n`,
    );
    loop = spawn('/bin/sh', ['-c', `while sleep 1; do curl -fsS -K '${config}' || exit 1; done`], {
      detached: true,
      stdio: 'ignore',
    });
    trackChild(loop);
    const first = await eventually(async () => {
      const r = await runner();
      return r?.ok === true ? r : undefined;
    }, 'a beat from the curl loop');
    // Beats keep coming, one a second: well past period + grace, the check is still good.
    await new Promise((resolve) => setTimeout(resolve, 4500));
    const later = await runner();
    expect(later?.ok).toBe(true);
    expect(Date.parse(later?.at ?? '')).toBeGreaterThan(Date.parse(first.at));

    const stopped = Date.now();
    process.kill(-(loop.pid as number), 'SIGTERM');
    const missing = await eventually(async () => {
      const r = await runner();
      return r?.ok === false ? r : undefined;
    }, 'the missing beat');
    expect(missing.detail).toBe('no beat within 3s');
    // Not before period + grace after the last beat (which came at most a second before the stop).
    expect(Date.now() - stopped).toBeGreaterThan(1500);

    // The check's history has the beats and the missing one.
    const h = await fetch(`${board.url}/api/checks/backup/history?range=1h`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const history = (await h.json()) as { runners: { runner: string; points: { ok: number }[] }[] };
    const push = history.runners.find((r) => r.runner === '@push');
    expect(push?.points.length).toBeGreaterThan(0);
    const oks = push?.points.map((p) => p.ok) ?? [];
    expect(Math.min(...oks)).toBeLessThan(1);
    expect(Math.max(...oks)).toBeGreaterThan(0);
  }, 60_000);

  it('status=down with a message is a failed result; unknown tokens 404; the web push routes still answer; beats are limited', async () => {
    const beat = (query: string, method = 'GET') =>
      fetch(`${board.url}/api/push/${BEAT}${query}`, { method });
    const down = await beat(`?status=down&msg=${encodeURIComponent('disk full\nat /srv')}`, 'POST');
    expect(down.status).toBe(200);
    expect(await down.json()).toEqual({ ok: true });
    const r = await runner();
    expect(r).toMatchObject({ ok: false, detail: 'disk full at /srv' });

    // Uptime Kuma's push URL as it shows it (`&ping=` empty), and with ping filled in.
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await beat('?status=up&msg=OK&ping=')).status).toBe(200);
    expect(await runner()).toMatchObject({ ok: true });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await beat('?status=up&msg=OK&ping=42')).status).toBe(200);
    expect(await runner()).toMatchObject({ ok: true, ms: 42 });

    const unknown = await fetch(`${board.url}/api/push/not-a-token-0123456789`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ detail: 'No push check with this token' });

    // /api/push/key and /api/push/subscriptions are the web push routes, not tokens.
    const auth = { authorization: `Bearer ${TOKEN}` };
    const key = await fetch(`${board.url}/api/push/key`, { headers: auth });
    expect(key.status).toBe(200);
    expect(((await key.json()) as { public_key: string }).public_key.length).toBeGreaterThan(40);
    const sub = await fetch(`${board.url}/api/push/subscriptions`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(sub.status).toBe(422);

    const statuses: number[] = [];
    for (let i = 0; i < 25; i += 1) statuses.push((await beat('?status=up')).status);
    expect(statuses).toContain(429);
    expect(statuses[0]).toBe(200);

    // The token reached the board in every path above; it is in no line the board wrote.
    await eventually(
      async () => (board.output.some((l) => l.includes('/api/push/[redacted]')) ? true : undefined),
      'the board to log a beat',
    );
    expect(board.output.join('\n')).not.toContain(BEAT);
  }, 60_000);
});

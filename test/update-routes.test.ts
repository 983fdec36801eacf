import { createHash } from 'node:crypto';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BoardApp, buildBoard } from '../src/board/app.js';
import { boardSettings } from '../src/board/config/config.js';
import { createLogger } from '../src/shared/logger.js';
import { timedKeyProof } from '../src/shared/wire/key-proof.js';
import { eventually } from './helpers/agent-fixtures.js';
import { type TempDir, tempDir } from './helpers/tmp.js';

const TOKEN = 'update-routes-board-token-0123';
const REGISTRATION = 'update-routes-registration-0123';
const AGENT = 'export const agent = 2;\n';
const SERVED = createHash('sha256').update(AGENT).digest('hex');
const OLD = '1'.repeat(64);
const KEY3 = 'update-routes-lab3-key-5e1f0c'; // secret-scan: key
let proofs = 0;

describe('updates from the board, over HTTP', () => {
  let dir: TempDir;
  let b: BoardApp;
  const auth = { authorization: `Bearer ${TOKEN}` };
  const report = (name: string, sha: string, updates = 'on', more: object = {}) => {
    const location = `http://127.0.0.1:1/${name}`;
    // lab3's reports prove its key (a verified machine); the others are only announced.
    proofs += 1;
    const at = new Date(Date.now() - 60_000 + proofs).toISOString();
    const proof =
      name === 'lab3'
        ? { key_proof_at: at, key_proof: timedKeyProof(KEY3, name, location, at) }
        : {};
    return b.app.inject({
      method: 'POST',
      url: '/api/report',
      headers: { authorization: `Bearer ${REGISTRATION}` },
      payload: {
        name,
        location,
        version: '0.1.0',
        updates,
        agent_file: 'panoptes-agent.mjs',
        agent_sha256: sha,
        ...proof,
        ...more,
      },
    });
  };
  const record = async (name: string) => {
    const r = await b.app.inject({ method: 'GET', url: '/api/board', headers: auth });
    return (r.json().machines as { name: string; agent: unknown }[]).find((m) => m.name === name);
  };
  const entries = async () => {
    const r = await b.app.inject({ method: 'GET', url: '/api/journal?limit=1000', headers: auth });
    return r.json().entries as {
      who: string;
      op: string;
      target: string;
      outcome: string;
      detail: string;
    }[];
  };
  const journal = async () => {
    const r = await b.app.inject({ method: 'GET', url: '/api/journal', headers: auth });
    return (r.json().entries as { op: string; target: string; outcome: string }[])
      .filter((e) => e.op === 'update')
      .map((e) => `${e.target} ${e.outcome}`)
      .reverse();
  };

  beforeAll(async () => {
    dir = tempDir('panoptes-update-routes-');
    b = await buildBoard({
      settings: boardSettings(
        {
          board_token: TOKEN,
          registration_token: REGISTRATION,
          data_dir: dir.path,
          announced_keys: { lab3: KEY3 },
        },
        `${dir.path}/board.yaml`,
        null,
      ),
      logger: createLogger('board', 'silent'),
      agentFiles: dirname(dir.write('files/panoptes-agent.mjs', AGENT)),
    });
    await b.app.ready();
  });
  afterAll(async () => {
    await b?.close();
    dir?.cleanup();
  });

  it("shows the agent in the machine's record", async () => {
    await report('lab1', OLD);
    await report('lab2', SERVED);
    await eventually(async () => ((await record('lab2')) === undefined ? undefined : true), 'view');
    await new Promise((r) => setTimeout(r, 600));
    expect((await record('lab1'))?.agent).toEqual({
      version: '0.1.0',
      sha256: OLD,
      update_available: true,
      updates: 'on',
      last_update: null,
    });
    expect((await record('lab2'))?.agent).toMatchObject({ update_available: false });
  });

  it('hands an update in the next report answer, and journals the new checksum as updated', async () => {
    const asked = await b.app.inject({
      method: 'POST',
      url: '/api/machines/lab1/update',
      headers: auth,
    });
    expect(asked.statusCode).toBe(202);
    expect(asked.json()).toMatchObject({ accepted: true, name: 'lab1', handed: 'queued' });
    const answer = (await report('lab1', OLD)).json();
    expect(answer.update).toEqual({ id: asked.json().id, requested_at: expect.any(String) });
    await report('lab1', SERVED);
    await eventually(
      async () => ((await journal()).includes('lab1 updated') ? true : undefined),
      'updated',
    );
    expect(await journal()).toEqual(['lab1 queued', 'lab1 delivered', 'lab1 updated']);
    const again = await b.app.inject({
      method: 'POST',
      url: '/api/machines/lab1/update',
      headers: auth,
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().detail).toMatch(/already runs/);
  });

  it('updates all: 202 with the verified machines only, 409 while it runs', async () => {
    await report('lab3', OLD);
    await report('lab4', OLD, 'off');
    // 25 fake names with the registration token: none is in a batch.
    for (let i = 0; i < 25; i += 1) await report(`fake${i}`, OLD);
    const all = await b.app.inject({ method: 'POST', url: '/api/machines/update', headers: auth });
    expect(all.statusCode).toBe(202);
    expect(all.json()).toEqual({ machines: ['lab3'] });
    const second = await b.app.inject({
      method: 'POST',
      url: '/api/machines/update',
      headers: auth,
      payload: { names: ['lab3'] },
    });
    expect(second.statusCode).toBe(409);
    expect((await report('lab3', OLD)).json().update).toBeDefined();
    await report('lab3', SERVED);
    await eventually(async () => (b.updates.running ? undefined : true), 'the run ends');
  });

  it("a fake name's fresh outcomes journal nothing; once handed an update, its outcome is journaled once, in its own words", async () => {
    const forged = (i: number, state = 'rolled_back') => ({
      update_outcome: {
        state,
        to_sha256: SERVED,
        detail: 'operator alice stopped db1',
        at: new Date(Date.UTC(2026, 0, 1) + i).toISOString(),
      },
    });
    for (let i = 0; i < 300; i += 1) await report('flood1', OLD, 'on', forged(i));
    await new Promise((r) => setTimeout(r, 200));
    const of = async () => (await entries()).filter((e) => e.target === 'flood1');
    expect((await of()).map((e) => `${e.op} ${e.outcome}`)).toEqual(['announce announced']);
    // An update asked and handed: of 300 more reports with fresh outcomes, one entry.
    const asked = await b.app.inject({
      method: 'POST',
      url: '/api/machines/flood1/update',
      headers: auth,
    });
    expect(asked.statusCode).toBe(202);
    expect((await report('flood1', OLD)).json().update).toBeDefined();
    for (let i = 300; i < 600; i += 1) await report('flood1', OLD, 'on', forged(i));
    await eventually(async () => ((await of()).length >= 4 ? true : undefined), 'the outcome');
    await new Promise((r) => setTimeout(r, 200));
    const all = (await of()).reverse();
    expect(all.map((e) => `${e.who} ${e.op} ${e.outcome}`)).toEqual([
      'registration announce announced',
      'board update queued',
      'board update delivered',
      'machine update rolled_back',
    ]);
    expect(all[3]?.detail).toBe('its agent reports rolled_back: "operator alice stopped db1"');
    expect((await entries()).filter((e) => e.detail.includes('alice'))).toHaveLength(1);
  });

  it('reads the served sums again before refusing: a file replaced a moment ago is offered at once', async () => {
    const newer = 'export const agent = 3; // a newer build\n';
    dir.write('files/panoptes-agent.mjs', newer);
    await report('lab2', SERVED);
    const asked = await b.app.inject({
      method: 'POST',
      url: '/api/machines/lab2/update',
      headers: auth,
    });
    expect(asked.statusCode).toBe(202);
    expect((await report('lab2', SERVED)).json().update).toBeDefined();
  });
});

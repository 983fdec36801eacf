import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { type RunningProgram, runToExit, startAgent, startBoard } from '../harness/processes.js';
import {
  eventually,
  Recorder,
  reloadRefusalsLogged,
  writeAgentConfig,
  writeBoardConfig,
} from './helpers/fleet.js';
import { paste, pasteBin } from './helpers/pasted.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'agent-labels-board-token-0123456789';
const REGISTRATION = 'agent-labels-registration-01234567';
const KEY = 'agent-labels-board-key-0123456789';
const AGENT_TOKEN = 'agent-labels-agent-token-0123456789';

interface Row {
  name: string;
  state: string;
  labels: Record<string, string>;
  board_labels: string[];
}

/**
 * Labels from the agent (`labels:` in its config, carried in its overview, polled or reported)
 * and from enrolling (the API's `labels`, kept as board labels; the agent's `enroll --label`),
 * with a real board, real agents and the pasted enroll command.
 */
describe('labels from the agent and from enrolling', () => {
  const dir = tempDir('panoptes-agent-labels-');
  const http = new Recorder();
  const running: RunningProgram[] = [];
  let board: RunningProgram;
  let polledFile: string;
  let polledConfig: Record<string, unknown>;
  let reporterFile: string;
  let reporterConfig: Record<string, unknown>;
  const bin = join(dir.path, 'bin');

  beforeAll(async () => {
    polledConfig = {
      name: 'poll1',
      token: AGENT_TOKEN,
      board_key: KEY,
      data_dir: `${dir.path}/poll1-data`,
      labels: { env: 'dev', site: 'fra', gpu: '' },
    };
    polledFile = writeAgentConfig(dir, 'poll1', polledConfig);
    const polled = await startAgent(polledFile);
    running.push(polled);
    board = await startBoard(
      writeBoardConfig(dir, 'board', {
        board_token: TOKEN,
        registration_token: REGISTRATION,
        sweep_interval: 0.3,
        // board.yaml's label on the agent's key wins.
        machines: [{ name: 'poll1', url: polled.url, key: KEY, labels: { env: 'prod' } }],
      }),
    );
    reporterConfig = {
      name: 'rep1',
      token: AGENT_TOKEN,
      data_dir: `${dir.path}/rep1-data`,
      labels: { site: 'ams', tier: 'web' },
      report: { board: board.url, token: REGISTRATION, interval: 1 },
    };
    reporterFile = writeAgentConfig(dir, 'rep1', reporterConfig);
    running.push(await startAgent(reporterFile));
    await pasteBin(bin);
  });

  afterAll(async () => {
    for (const p of running) await p.stop();
    await board?.stop();
    dir.cleanup();
  });

  const call = (path: string, init: RequestInit = {}) =>
    http.call(`${board.url}${path}`, { ...init, token: TOKEN });
  const row = async (name: string): Promise<Row | undefined> => {
    const answer = await call('/api/board');
    return (answer.json as { machines: Row[] }).machines.find((m) => m.name === name);
  };
  const labelsOn = (name: string, labels: Record<string, string>, boardLabels: string[]) =>
    eventually(
      async () => {
        const m = await row(name);
        expect(m?.state).toBe('up');
        expect(m?.labels).toEqual(labels);
        expect(m?.board_labels).toEqual(boardLabels);
        return m;
      },
      `${name}'s labels ${JSON.stringify(labels)}`,
    );
  const report = (body: unknown, chunked = false) => {
    const text = JSON.stringify(body);
    return http.call(`${board.url}/api/report`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      token: REGISTRATION,
      body: chunked
        ? new ReadableStream({
            start(c) {
              c.enqueue(Buffer.from(text));
              c.close();
            },
          })
        : text,
      ...(chunked ? { duplex: 'half' } : {}),
    } as RequestInit);
  };

  it("shows the labels of a polled agent's config and of a reporting one's, a board.yaml label winning", async () => {
    await labelsOn('poll1', { env: 'prod', gpu: '', site: 'fra' }, ['env']);
    await labelsOn('rep1', { site: 'ams', tier: 'web' }, []);
    const selected = await call('/api/board?selector=site%3Dams');
    expect((selected.json as { machines: Row[] }).machines.map((m) => m.name)).toEqual(['rep1']);
  });

  it("shows a reload of the agent's labels (SIGHUP, a change of the file); a bad one keeps the old", async () => {
    writeAgentConfig(dir, 'poll1', { ...polledConfig, labels: { site: 'ber', env: 'dev' } });
    process.kill(running[0]?.pid as number, 'SIGHUP');
    await labelsOn('poll1', { env: 'prod', site: 'ber' }, ['env']);
    // The reporting agent reloads on the change of its file alone.
    writeAgentConfig(dir, 'rep1', { ...reporterConfig, labels: { tier: 'db' } });
    await labelsOn('rep1', { tier: 'db' }, []);
    writeAgentConfig(dir, 'poll1', { ...polledConfig, labels: { Site: 'x' } });
    process.kill(running[0]?.pid as number, 'SIGHUP');
    await reloadRefusalsLogged(running[0]?.output ?? [], polledFile, ['labels']);
    expect(running[0]?.output.join('\n')).toContain('label \\"Site\\"');
    await labelsOn('poll1', { env: 'prod', site: 'ber' }, ['env']);
  });

  it('refuses to start with a label that breaks the rule, naming it', async () => {
    const file = writeAgentConfig(dir, 'bad', { ...polledConfig, labels: { env: 'pr od' } });
    const { code, output } = await runToExit('agent', ['--config', file, '--port', '0']);
    expect(code).not.toBe(0);
    expect(output).toContain('labels: label "env": a value is empty or 1-63');
  });

  it('refuses a report carrying a label that breaks the rule (422 naming it), on either path', async () => {
    const base = { name: 'rep2', location: 'http://127.0.0.1:1' };
    for (const chunked of [false, true]) {
      const bad = await report({ ...base, labels: { ok: 'yes', 'Bad key': 'v' } }, chunked);
      expect(bad.status).toBe(422);
      expect(bad.json).toEqual({
        detail: [
          {
            type: 'value_error',
            loc: ['body', 'labels', 'Bad key'],
            msg: 'Value error, label "Bad key": a key is 1-63 of a-z 0-9 . _ / -, starting with a letter or digit',
            input: 'v',
          },
        ],
      });
      const name = await report({ ...base, labels: { name: 'x' } }, chunked);
      expect(name.json).toMatchObject({ detail: [{ loc: ['body', 'labels', 'name'] }] });
    }
    expect(await row('rep2')).toBeUndefined();
    expect((await report({ ...base, labels: { ok: 'yes' } })).status).toBe(200);
    expect((await row('rep2'))?.labels).toEqual({ ok: 'yes' });
  });

  it("keeps the enroll's labels as board labels: the pasted agent's first report has them, with its own --label", async () => {
    const enroll = (name: string, body?: unknown) =>
      call(`/api/machines/${name}/enroll`, {
        method: 'POST',
        ...(body === undefined
          ? {}
          : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      });
    const bad = await enroll('lab1', { labels: { env: 'prod', Team: 'web' } });
    expect(bad.status).toBe(422);
    expect(bad.json).toEqual({
      detail: [
        {
          type: 'value_error',
          loc: ['body', 'labels', 'Team'],
          msg: 'Value error, label "Team": a key is 1-63 of a-z 0-9 . _ / -, starting with a letter or digit',
          input: 'web',
        },
      ],
    });
    // Nothing was kept: no enrollment of lab1.
    const list = (await call('/api/enrollments')).json as { enrollments: { name: string }[] };
    expect(list.enrollments.map((e) => e.name)).not.toContain('lab1');
    // No body, or an empty one of any type, is what it always was: no labels given.
    const empty = await call('/api/machines/lab0/enroll', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '',
    });
    expect(empty.status).toBe(200);
    expect((await enroll('lab0')).status).toBe(200);
    const good = await enroll('lab1', { labels: { env: 'prod', role: 'web' } });
    expect(good.status).toBe(200);
    const { command } = good.json as { command: string };
    const work = join(dir.path, 'lab1');
    running.push(
      await paste(`${command} --port 0 --interval 1 --label role=db --label gpu`, bin, work),
    );
    expect(parse(readFileSync(join(work, 'panoptes-agent.yaml'), 'utf8')).labels).toEqual({
      gpu: '',
      role: 'db',
    });
    await labelsOn('lab1', { env: 'prod', gpu: '', role: 'web' }, ['env', 'role']);
    // Enrolling again without labels keeps them; with {} clears them. The new key goes in the
    // agent's file (which it reloads), so that it reports again.
    const rekey = (answer: { status: number; json: unknown }) => {
      expect(answer.status).toBe(200);
      const file = join(work, 'panoptes-agent.yaml');
      const yaml = parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
      writeFileSync(file, stringify({ ...yaml, board_key: (answer.json as { key: string }).key }));
    };
    rekey(await enroll('lab1'));
    await labelsOn('lab1', { env: 'prod', gpu: '', role: 'web' }, ['env', 'role']);
    rekey(await enroll('lab1', { labels: {} }));
    await labelsOn('lab1', { gpu: '', role: 'db' }, []);
  });

  it('enroll --label that breaks the rule exits non-zero naming it, writing nothing', async () => {
    const config = join(dir.path, 'never', 'panoptes-agent.yaml');
    const { code, output } = await runToExit(
      'agent',
      ['enroll', '--board', board.url, '--name', 'lab2', '--config', config, '--label', 'Env=x'],
      { env: { PANOPTES_BOARD_KEY: KEY, PANOPTES_REGISTRATION_TOKEN: REGISTRATION } },
    );
    expect(code).not.toBe(0);
    expect(output).toContain('--label: label "Env"');
    expect(existsSync(config)).toBe(false);
  });

  it('leaks no secret into an answer', () => {
    expect(http.leaks([AGENT_TOKEN, KEY])).toEqual([]);
  });
});

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { type RunningProgram, startAgent, startBoard } from '../harness/processes.js';
import { eventually, Recorder, writeAgentConfig, writeBoardConfig } from './helpers/fleet.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'labels-board-token-0123456789';
const KEY = 'labels-board-key-0123456789ab';

interface Row {
  name: string;
  state: string;
  labels: Record<string, string>;
  board_labels: string[];
}

describe('labels and groups: board.yaml, the API, selectors and groups on a running board', () => {
  const dir = tempDir('panoptes-labels-');
  const http = new Recorder();
  const agents: RunningProgram[] = [];
  let board: RunningProgram;
  let configDir: string;
  let config: Record<string, unknown>;

  beforeAll(async () => {
    for (const name of ['fra1', 'fra2', 'ams1']) {
      agents.push(
        await startAgent(
          writeAgentConfig(dir, name, {
            name,
            token: 'labels-agent-token-0123456789',
            board_key: KEY,
            data_dir: `${dir.path}/${name}-data`,
          }),
        ),
      );
    }
    const [fra1, fra2, ams1] = agents as [RunningProgram, RunningProgram, RunningProgram];
    config = {
      board_token: TOKEN,
      sweep_interval: 0.3,
      machines: [
        { name: 'fra1', url: fra1.url, key: KEY, labels: { site: 'fra', env: 'prod' } },
        { name: 'fra2', url: fra2.url, key: KEY, labels: { site: 'fra', env: 'dev', gpu: '' } },
        { name: 'ams1', url: ams1.url, key: KEY, labels: { site: 'ams', env: 'prod' } },
      ],
      groups: [
        { name: 'Frankfurt', selector: 'site=fra' },
        { name: 'Production', selector: 'env=prod' },
        { name: 'GPUs', selector: 'gpu,!retired' },
      ],
    };
    configDir = writeBoardConfig(dir, 'board', config);
    board = await startBoard(configDir);
    await eventually(async () => {
      const rows = await machines('');
      expect(rows.filter((r) => r.state === 'up')).toHaveLength(3);
      return true;
    }, 'three machines up');
  });

  afterAll(async () => {
    await board?.stop();
    for (const a of agents) await a.stop();
    dir.cleanup();
  });

  const call = (path: string, init: RequestInit = {}) =>
    http.call(`${board.url}${path}`, { ...init, token: TOKEN });
  const machines = async (selector: string): Promise<Row[]> => {
    const answer = await call(`/api/board?selector=${encodeURIComponent(selector)}`);
    expect(answer.status).toBe(200);
    return (answer.json as { machines: Row[] }).machines;
  };
  const names = async (selector: string) => (await machines(selector)).map((m) => m.name);
  const putLabels = (name: string, labels: unknown) =>
    call(`/api/machines/${name}/labels`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ labels }),
    });

  it("lists each machine's labels from board.yaml, and selects by them", async () => {
    const all = await machines('');
    expect(all.find((m) => m.name === 'fra2')).toMatchObject({
      labels: { env: 'dev', gpu: '', site: 'fra' },
      board_labels: ['env', 'gpu', 'site'],
    });
    expect(await names('site=fra')).toEqual(['fra1', 'fra2']);
    expect(await names('env=prod,site in (fra,ams)')).toEqual(['ams1', 'fra1']);
    expect(await names('!gpu')).toEqual(['ams1', 'fra1']);
    expect(await names('name in (ams1,fra2)')).toEqual(['ams1', 'fra2']);
    expect(await names('env=nowhere')).toEqual([]);
    const full = await call('/api/board');
    const filtered = await call('/api/board?selector=site%3Dfra');
    expect(Object.keys(filtered.json as object)).toEqual(Object.keys(full.json as object));
  });

  it('refuses a selector that does not parse with a 422 naming the position', async () => {
    const answer = await call(`/api/board?selector=${encodeURIComponent('env=prod,,x')}`);
    expect(answer.status).toBe(422);
    expect(answer.json).toEqual({
      detail: [
        {
          type: 'value_error',
          loc: ['query', 'selector'],
          msg: 'Value error, selector: expected a label key at position 9',
          input: 'env=prod,,x',
          ctx: { error: 'expected a label key', position: 9 },
        },
      ],
    });
  });

  it('counts each group, up and down', async () => {
    const answer = await call('/api/groups');
    expect(answer.json).toEqual({
      groups: [
        { name: 'Frankfurt', selector: 'site=fra', machines: 2, up: 2, down: 0 },
        { name: 'Production', selector: 'env=prod', machines: 2, up: 2, down: 0 },
        { name: 'GPUs', selector: 'gpu,!retired', machines: 1, up: 1, down: 0 },
      ],
    });
  });

  it('sets board labels through the API over those of board.yaml, journaled; {} clears them', async () => {
    const set = await putLabels('fra2', { retired: 'yes', env: 'staging' });
    expect(set.status).toBe(200);
    expect(set.json).toEqual({
      name: 'fra2',
      labels: { env: 'staging', gpu: '', retired: 'yes', site: 'fra' },
      board_labels: ['env', 'gpu', 'retired', 'site'],
    });
    expect(await names('retired')).toEqual(['fra2']);
    const groups = (await call('/api/groups')).json as {
      groups: { name: string; machines: number }[];
    };
    expect(groups.groups.find((g) => g.name === 'GPUs')?.machines).toBe(0);
    const journal = (await call('/api/journal?limit=50')).json as {
      entries: { op: string; target: string; outcome: string; detail: string }[];
    };
    expect(journal.entries.find((e) => e.op === 'labels')).toMatchObject({
      target: 'fra2',
      outcome: 'labeled',
      detail: 'board labels: env=staging, retired=yes',
    });
    expect((await putLabels('fra2', {})).status).toBe(200);
    expect(await names('retired')).toEqual([]);
    expect((await machines('name=fra2'))[0]?.labels).toEqual({ env: 'dev', gpu: '', site: 'fra' });
  });

  it('refuses a label that breaks the rule with a 422 naming it, and an unknown machine with 404', async () => {
    const bad = await putLabels('fra1', { env: 'prod', Team: 'web' });
    expect(bad.status).toBe(422);
    expect(bad.json).toMatchObject({
      detail: [{ loc: ['body', 'labels', 'Team'], input: 'web' }],
    });
    expect((bad.json as { detail: { msg: string }[] }).detail[0]?.msg).toMatch(/label "Team"/);
    const value = await putLabels('fra1', { env: 'pr od' });
    expect(value.json).toMatchObject({ detail: [{ loc: ['body', 'labels', 'env'] }] });
    const name = await putLabels('fra1', { name: 'x' });
    expect(name.status).toBe(422);
    expect((await putLabels('nowhere', { env: 'prod' })).status).toBe(404);
    expect(await names('env=prod')).toEqual(['ams1', 'fra1']);
  });

  it("applies board.yaml's labels and groups on a reload, without a restart", async () => {
    const next = structuredClone(config) as {
      machines: { labels: Record<string, string> }[];
      groups: unknown[];
    };
    (next.machines[2] as { labels: Record<string, string> }).labels = { site: 'ams', env: 'dev' };
    next.groups = [{ name: 'Amsterdam', selector: 'site=ams' }];
    writeFileSync(join(configDir, 'board.yaml'), stringify(next));
    await eventually(async () => {
      expect(await names('env=prod')).toEqual(['fra1']);
      expect((await call('/api/groups')).json).toEqual({
        groups: [{ name: 'Amsterdam', selector: 'site=ams', machines: 1, up: 1, down: 0 }],
      });
      return true;
    }, 'the reloaded labels and groups');
  });
});

import { describe, expect, it } from 'vitest';
import { testBoard } from '../../../test/helpers/board-kit.js';
import { toLabels } from '../../shared/labels.js';
import { BOARD_WHO } from './who.js';

const KEY = 'machine-key-0123456789';

function board() {
  return testBoard({
    machines: [
      { name: 'web1', url: 'http://127.0.0.1:1', key: KEY, labels: { env: 'prod', site: 'fra' } },
      { name: 'web2', url: 'http://127.0.0.1:2', key: KEY },
    ],
  });
}

describe('board labels', () => {
  it("put the store's labels over board.yaml's, and the agent's under both", async () => {
    const t = board();
    const web1 = t.registry.get('web1');
    expect({ ...web1?.labels }).toEqual({ env: 'prod', site: 'fra' });
    await t.labels.set(BOARD_WHO, 'web1', toLabels({ env: 'staging' }));
    t.registry.observe(web1 as never, {
      ok: true,
      overview: { labels: { env: 'dev', team: 'ml', Bad: 'x', ok: 'pr od' } },
    });
    expect({ ...web1?.labels }).toEqual({ env: 'staging', site: 'fra', team: 'ml' });
    expect(Object.keys(web1?.boardLabels ?? {})).toEqual(['env', 'site']);
    expect({ ...web1?.agentLabels }).toEqual({ env: 'dev', team: 'ml' });
    await t.labels.set(BOARD_WHO, 'web1', toLabels({}));
    expect({ ...web1?.labels }).toEqual({ env: 'prod', site: 'fra', team: 'ml' });
  });

  it('give a machine that comes later the labels kept for its name (an enrollment)', async () => {
    const t = board();
    await t.labels.keep('lab9', toLabels({ site: 'ams' }));
    const made = t.registry.announce('lab9', 'http://127.0.0.1:9');
    if (!('machine' in made)) throw new Error('refused');
    expect({ ...made.machine.labels }).toEqual({ site: 'ams' });
    expect(made.machine.boardLabels).toBe(made.machine.labels);
  });

  it("take what another board stored, unless a save of this board's came between", async () => {
    const t = board();
    const seen = t.labels.version;
    t.labels.sync([{ name: 'web2', labels: toLabels({ env: 'dev' }) }], seen);
    expect({ ...t.registry.get('web2')?.labels }).toEqual({ env: 'dev' });
    const before = t.labels.version;
    await t.labels.set(BOARD_WHO, 'web2', toLabels({ env: 'prod' }));
    // A read made before that save: it does not undo it.
    t.labels.sync([{ name: 'web2', labels: toLabels({ env: 'dev' }) }], before);
    expect({ ...t.registry.get('web2')?.labels }).toEqual({ env: 'prod' });
    t.labels.sync([], t.labels.version);
    expect({ ...t.registry.get('web2')?.labels }).toEqual({});
  });

  it('apply a reload of board.yaml, keeping what the store holds over it', async () => {
    const t = board();
    await t.labels.set(BOARD_WHO, 'web2', toLabels({ owner: 'ml' }));
    t.labels.configure([
      { name: 'web1', url: 'http://127.0.0.1:1', location: 'x', key: KEY },
      {
        name: 'web2',
        url: 'http://127.0.0.1:2',
        location: 'x',
        key: KEY,
        labels: toLabels({ owner: 'web', env: 'dev' }),
      },
    ]);
    expect({ ...t.registry.get('web1')?.labels }).toEqual({});
    expect({ ...t.registry.get('web2')?.labels }).toEqual({ env: 'dev', owner: 'ml' });
  });
});

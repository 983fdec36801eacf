import { expect, it } from 'vitest';
import { toLabels } from '../../shared/labels.js';
import type { BoardStore } from './state.js';

/** How a contract run gets stores: a fresh one, and (for engines that keep data) the same again. */
export interface StoreFactory {
  /** A new, empty store. */
  fresh(): Promise<BoardStore>;
  /** A new instance over the same data as `store` (after closing it), or null for memory. */
  reopen: ((store: BoardStore) => Promise<BoardStore>) | null;
}

/**
 * The state contract's cases of the tables that keep what a restart must not forget (the disk
 * alerts sent, pending updates, the update-signing key); called inside stateContract's describe.
 */
export function keptTablesContract(
  factory: StoreFactory,
  again: (store: BoardStore) => Promise<BoardStore>,
): void {
  it('sent alerts: a put replaces the row of its key, removals by key, kept across a reopen', async () => {
    const store = await factory.fresh();
    expect(await store.alerts.load()).toEqual([]);
    const row = (machine: string, device: string, alert: string) => ({
      key: JSON.stringify(['disk_health', machine, device]),
      machine,
      alert,
    });
    await store.alerts.put(row('lab7', '/dev/sda', '{"since":1}'));
    await store.alerts.put(row('lab7', '/dev/sdb', '{"since":2}'));
    await store.alerts.put(row('gpu1', '/dev/nvme0n1', '{"since":3}'));
    await store.alerts.put(row('lab7', '/dev/sda', '{"since":1,"sent":{}}'));
    await store.alerts.remove([row('lab7', '/dev/sdb', '').key, 'no such key']);
    await store.alerts.remove([]);
    const back = await again(store);
    expect(await back.alerts.load()).toEqual([
      row('gpu1', '/dev/nvme0n1', '{"since":3}'),
      row('lab7', '/dev/sda', '{"since":1,"sent":{}}'),
    ]);
    await back.close();
  });

  it('selector silences: put by id, removed once (whether it was there), kept across a reopen', async () => {
    const store = await factory.fresh();
    expect(await store.selectorSilences.load()).toEqual([]);
    const fra = { id: 'b2', selector: 'site=fra', until: 1_700_000_600_000, reason: 'rack move' };
    const gpu = { id: 'a1', selector: 'gpu,!retired', until: 1_700_000_700_000, reason: '' };
    await store.selectorSilences.put(fra);
    await store.selectorSilences.put(gpu);
    await store.selectorSilences.put({ ...fra, id: 'c3' });
    expect(await store.selectorSilences.remove('c3')).toBe(true);
    expect(await store.selectorSilences.remove('c3')).toBe(false);
    const back = await again(store);
    expect(await back.selectorSilences.load()).toEqual([gpu, fra]);
    await back.close();
  });

  it('auth records: put replaces by kind and id, expiry hides and sweeps, refresh never brings one back', async () => {
    const store = await factory.fresh();
    const rec = (
      kind: 'person' | 'session' | 'token',
      id: string,
      body: string,
      exp: number | null,
    ) => ({
      kind,
      id,
      body,
      expires_at: exp,
    });
    await store.auth.put(rec('person', 'ada', '{"n":1}', null));
    await store.auth.put(rec('person', 'ada', '{"n":2}', null));
    await store.auth.put(rec('session', 'ada', '{"s":1}', 2_000));
    await store.auth.put(rec('session', 'bob', '{"s":2}', 5_000));
    expect(await store.auth.get('person', 'ada', 1_000)).toEqual(
      rec('person', 'ada', '{"n":2}', null),
    );
    expect(await store.auth.get('session', 'ada', 1_999)).toEqual(
      rec('session', 'ada', '{"s":1}', 2_000),
    );
    expect(await store.auth.get('session', 'ada', 2_000)).toBeNull();
    expect((await store.auth.list('session', 2_000)).map((r) => r.id)).toEqual(['bob']);
    expect(await store.auth.refresh(rec('session', 'bob', '{"s":3}', 6_000))).toBe(true);
    expect(await store.auth.remove('session', 'bob')).toBe(true);
    expect(await store.auth.remove('session', 'bob')).toBe(false);
    expect(await store.auth.refresh(rec('session', 'bob', '{"s":4}', 6_000))).toBe(false);
    expect(await store.auth.get('session', 'bob', 0)).toBeNull();
    expect(await store.auth.sweep(2_000)).toBe(1);
    const back = await again(store);
    expect(await back.auth.list('person', 0)).toEqual([rec('person', 'ada', '{"n":2}', null)]);
    expect(await back.auth.list('session', 0)).toEqual([]);
    await back.close();
  });

  it('board labels: a put replaces the map of its name, an empty map removes it, kept across a reopen', async () => {
    const store = await factory.fresh();
    expect(await store.labels.load()).toEqual([]);
    await store.labels.put('lab2', toLabels({ env: 'prod', site: 'fra' }));
    await store.labels.put('lab1', toLabels({ gpu: '' }));
    await store.labels.put('lab3', toLabels({ env: 'dev' }));
    await store.labels.put('lab2', toLabels({ env: 'dev', 'team/web': 'a.b' }));
    await store.labels.put('lab3', toLabels({}));
    await store.labels.put('never', toLabels({}));
    const back = await again(store);
    const rows = await back.labels.load();
    expect(rows.map((r) => [r.name, { ...r.labels }])).toEqual([
      ['lab1', { gpu: '' }],
      ['lab2', { env: 'dev', 'team/web': 'a.b' }],
    ]);
    await back.close();
  });

  it('updates: a put replaces the row of its name; of several boards one hands it, one removes it', async () => {
    const store = await factory.fresh();
    const row = (name: string, id: string, queued = true) => ({
      name,
      id,
      asked_at: 1_700_000_000_000,
      queued,
      prior_at: queued ? null : '2026-01-02T03:04:05.000Z',
    });
    await store.updates.put(row('lab2', 'u-1'));
    await store.updates.put(row('lab1', 'u-2'));
    await store.updates.put(row('lab1', 'u-3', false));
    expect(await store.updates.hand('lab2', 'u-9')).toBe(false);
    expect(await store.updates.hand('lab2', 'u-1')).toBe(true);
    expect(await store.updates.hand('lab2', 'u-1')).toBe(false);
    // Only the update it names: an older id does not remove the newer row.
    expect(await store.updates.remove('lab1', 'u-2')).toBe(false);
    const back = await again(store);
    expect(await back.updates.load()).toEqual(
      [row('lab1', 'u-3', false), row('lab2', 'u-1', true)].map((r) =>
        r.name === 'lab2' ? { ...r, queued: false } : r,
      ),
    );
    expect(await back.updates.remove('lab1', 'u-3')).toBe(true);
    expect(await back.updates.remove('lab1', 'u-3')).toBe(false);
    expect((await back.updates.load()).map((r) => r.name)).toEqual(['lab2']);
    await back.close();
  });

  it('signing: the first update-signing key pair kept is every later answer, after a reopen too', async () => {
    const store = await factory.fresh();
    const first = { publicKey: 'A'.repeat(43), privateKey: 'p'.repeat(43) };
    expect(await store.signing.key(first, 1_700_000_000_000)).toEqual(first);
    const other = { publicKey: 'B'.repeat(43), privateKey: 'q'.repeat(43) };
    expect(await store.signing.key(other, 2)).toEqual(first);
    const back = await again(store);
    expect(await back.signing.key(other, 3)).toEqual(first);
    await back.close();
  });
}

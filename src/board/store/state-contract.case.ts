import { describe, expect, it } from 'vitest';
import type { QueuedAction } from '../domain/action-queue.js';
import type { Pending } from '../notify/ports.js';
import type { JournalEntry } from '../schemas.js';
import type { BoardStore, StoredIdentity } from './state.js';
import { keptTablesContract, type StoreFactory } from './state-contract-kept.case.js';

export type { StoreFactory } from './state-contract-kept.case.js';

const entry = (id: number, detail = `entry ${id}`): JournalEntry => ({
  id,
  at: new Date(1_700_000_000_000 + id * 1000).toISOString(),
  who: 'board',
  actor: { kind: 'board_token', name: 'board_token' },
  op: 'do',
  target: 'lab1/backup/start',
  outcome: 'queued',
  status: id % 2 === 0 ? 200 : null,
  detail,
});
const action = (id: string, name = 'lab1', delivered = false): QueuedAction => ({
  id,
  name,
  what: 'backup',
  action: 'start',
  requestedAt: 1_700_000_000_000 + id.length,
  delivered,
});
/** An identity as the store keeps it (also the fixture of identity-diff.test.ts). */
export const identity = (name: string, over: Partial<StoredIdentity> = {}): StoredIdentity => ({
  name,
  location: `http://${name}.example:8701`,
  first_seen: 1_700_000_000_000,
  last_seen: 1_700_000_100_000,
  verified: false,
  key_proof_at: null,
  ...over,
});
const pending = (channel: string): Pending => ({
  channel,
  message: { title: 't', text: 'lab1 is down', boardUrl: null, events: [] },
});

/**
 * The contract every engine of the board's state passes (Hono's common.case pattern): each
 * engine's test file calls this with its factory. Memory, SQLite and PostgreSQL answer alike.
 */
export function stateContract(kind: string, factory: StoreFactory): void {
  const again = async (store: BoardStore): Promise<BoardStore> =>
    factory.reopen === null ? store : factory.reopen(store);

  describe(`state store contract: ${kind}`, () => {
    keptTablesContract(factory, again);

    it('is empty at first', async () => {
      const store = await factory.fresh();
      expect(await store.journal.load()).toEqual([]);
      expect(await store.queue.load()).toEqual([]);
      expect(await store.identities.load()).toEqual([]);
      expect(await store.silences.load()).toEqual([]);
      expect(await store.deliveries.take()).toEqual([]);
      expect(await store.updates.load()).toEqual([]);
      await store.ping();
      await store.close();
    });

    it('journal: entries come back by id, whatever order they were written in; removed ones do not', async () => {
      const store = await factory.fresh();
      await Promise.all([3, 1, 2, 5, 4].map((id) => store.journal.append(entry(id))));
      // The same id again (a retry) is not a second entry.
      await store.journal.append(entry(2, 'again'));
      await store.journal.remove([1, 4]);
      const back = await again(store);
      expect(await back.journal.load()).toEqual([entry(2), entry(3), entry(5)]);
      await back.close();
    });

    it('journal: the newest entries of every board, newest first', async () => {
      const store = await factory.fresh();
      await store.journal.append({ ...entry(5), board: 'a' });
      await store.journal.append({ ...entry(70), at: entry(3).at, board: 'b' });
      await store.journal.append({ ...entry(6), board: 'a' });
      expect((await store.journal.recent(2)).map((e) => e.id)).toEqual([6, 5]);
      expect((await store.journal.recent(10)).map((e) => e.id)).toEqual([6, 5, 70]);
      // Pages: older than the last entry given, in the same order.
      const [, last] = await store.journal.recent(2);
      expect((await store.journal.recent(10, last)).map((e) => e.id)).toEqual([70]);
      const six = { at: entry(6).at, id: 6 };
      expect((await store.journal.recent(1, six)).map((e) => e.id)).toEqual([5]);
      expect(await store.journal.recent(10, { at: entry(3).at, id: 70 })).toEqual([]);
      // At the same time, the lower id comes later.
      await store.journal.append({ ...entry(69), at: entry(3).at, board: 'b' });
      const tied = await store.journal.recent(10, { at: entry(3).at, id: 70 });
      expect(tied.map((e) => e.id)).toEqual([69]);
      await store.close();
    });

    it('journal: 500 appends at once all commit (group commit, or a pool)', async () => {
      const store = await factory.fresh();
      const ids = Array.from({ length: 500 }, (_, i) => i + 1);
      await Promise.all(ids.map((id) => store.journal.append(entry(id, `d${id}\u00e9\u65e5`))));
      const back = await again(store);
      const loaded = await back.journal.load();
      expect(loaded.map((e) => e.id)).toEqual(ids);
      expect(loaded[41]?.detail).toBe('d42\u00e9\u65e5');
      await back.close();
    });

    it('queue: adds in order, the delivered flag, removals; a duplicate id is refused', async () => {
      const store = await factory.fresh();
      await store.queue.add(action('a-1'));
      await store.queue.add(action('b-22', 'lab2'));
      await store.queue.add(action('c-333'));
      expect(await store.queue.markDelivered('b-22')).toBe(true);
      // Of several boards, only the first to mark or remove one is told it did.
      expect(await store.queue.markDelivered('b-22')).toBe(false);
      expect(await store.queue.remove('a-1')).toBe(true);
      expect(await store.queue.remove('a-1')).toBe(false);
      await expect(store.queue.add(action('c-333'))).rejects.toThrow();
      const back = await again(store);
      expect(await back.queue.load()).toEqual([action('b-22', 'lab2', true), action('c-333')]);
      await back.close();
    });

    it('identities: a save makes the stored set the one given (changed, added, gone)', async () => {
      const store = await factory.fresh();
      await store.identities.save([identity('a'), identity('b'), identity('c')]);
      await store.identities.save([
        identity('a', { verified: true, key_proof_at: 1_700_000_200_000, last_seen: null }),
        identity('c'),
        identity('d', { location: 'https://d.example/' }),
      ]);
      const back = await again(store);
      expect(await back.identities.load()).toEqual([
        identity('a', { verified: true, key_proof_at: 1_700_000_200_000, last_seen: null }),
        identity('c'),
        identity('d', { location: 'https://d.example/' }),
      ]);
      // After a reopen, a save still removes what is gone.
      await back.identities.save([identity('d', { location: 'https://d.example/' })]);
      expect((await back.identities.load()).map((i) => i.name)).toEqual(['d']);
      await back.close();
    });

    it('silences: a save replaces them all', async () => {
      const store = await factory.fresh();
      await store.silences.save([
        { name: 'a', until: 1_700_000_600_000, reason: 'rack move' },
        { name: 'b', until: 1_700_000_700_000, reason: '' },
      ]);
      await store.silences.save([{ name: 'b', until: 1_700_000_800_000, reason: 'still' }]);
      const back = await again(store);
      expect(await back.silences.load()).toEqual([
        { name: 'b', until: 1_700_000_800_000, reason: 'still' },
      ]);
      await back.close();
    });

    it('enrollments: a put replaces the row of its name; revoked rows keep their name', async () => {
      const store = await factory.fresh();
      expect(await store.enrollments.load()).toEqual([]);
      const key = 'k'.repeat(43);
      await store.enrollments.put({
        name: 'lab7',
        key,
        enrolled_at: 1_700_000_000_000,
        revoked_at: null,
      });
      await store.enrollments.put({
        name: 'gpu1',
        key: 'g'.repeat(43),
        enrolled_at: 1_700_000_100_000,
        revoked_at: null,
      });
      await store.enrollments.put({
        name: 'lab7',
        key: null,
        enrolled_at: 1_700_000_000_000,
        revoked_at: 1_700_000_200_000,
      });
      const back = await again(store);
      expect(await back.enrollments.load()).toEqual([
        { name: 'gpu1', key: 'g'.repeat(43), enrolled_at: 1_700_000_100_000, revoked_at: null },
        { name: 'lab7', key: null, enrolled_at: 1_700_000_000_000, revoked_at: 1_700_000_200_000 },
      ]);
      await back.close();
    });

    it('acks: one per machine and session; an older bell never replaces a newer one; removals only of the bell given', async () => {
      const store = await factory.fresh();
      expect(await store.acks.load()).toEqual([]);
      const ack = (machine: string, session: string, second: number, ackedAt: number) => ({
        machine,
        session,
        bell_at: new Date(1_700_000_000_000 + second * 1000).toISOString(),
        acked_at: 1_700_000_000_000 + ackedAt,
      });
      await store.acks.put(ack('web1', 'claude · webshop', 10, 1));
      await store.acks.put(ack('web1', 'codex ci', 20, 2));
      await store.acks.put(ack('lab2', 'a', 5, 3));
      // The same session acknowledged again at its next bell; then a late ack of the old one.
      await store.acks.put(ack('web1', 'claude · webshop', 30, 4));
      await store.acks.put(ack('web1', 'claude · webshop', 10, 5));
      // A removal of a bell that is no longer the one stored removes nothing.
      await store.acks.remove([ack('web1', 'claude · webshop', 10, 1), ack('lab2', 'a', 5, 3)]);
      const back = await again(store);
      expect(await back.acks.load()).toEqual([
        ack('web1', 'claude · webshop', 30, 4),
        ack('web1', 'codex ci', 20, 2),
      ]);
      await back.acks.remove([]);
      await back.close();
    });

    it('push: the first key pair kept is every later answer; subscriptions once per endpoint, bounded', async () => {
      const store = await factory.fresh();
      const first = { publicKey: 'B'.repeat(87), privateKey: 'p'.repeat(43) };
      expect(await store.push.keys(first, 1_700_000_000_000)).toEqual(first);
      expect(
        await store.push.keys({ publicKey: 'C'.repeat(87), privateKey: 'q'.repeat(43) }, 2),
      ).toEqual(first);
      expect(await store.push.list()).toEqual([]);
      const sub = (id: string, endpoint: string, at: number) => ({
        id,
        endpoint,
        p256dh: `${id}-p256dh`,
        auth: `${id}-auth`,
        created_at: at,
      });
      expect(await store.push.subscribe(sub('s1', 'https://push.example/a', 10), 2)).toEqual({
        id: 's1',
        added: true,
      });
      expect(await store.push.subscribe(sub('s2', 'https://push.example/b', 20), 2)).toEqual({
        id: 's2',
        added: true,
      });
      // Full: a new endpoint is refused, a known one renews its keys and keeps its id.
      expect(await store.push.subscribe(sub('s3', 'https://push.example/c', 30), 2)).toBeNull();
      expect(await store.push.subscribe(sub('s4', 'https://push.example/a', 40), 2)).toEqual({
        id: 's1',
        added: false,
      });
      const back = await again(store);
      expect(
        await back.push.keys({ publicKey: 'D'.repeat(87), privateKey: 'r'.repeat(43) }, 3),
      ).toEqual(first);
      expect(await back.push.list()).toEqual([
        { ...sub('s1', 'https://push.example/a', 10), p256dh: 's4-p256dh', auth: 's4-auth' },
        sub('s2', 'https://push.example/b', 20),
      ]);
      expect(await back.push.unsubscribe('s1')).toBe(true);
      expect(await back.push.unsubscribe('s1')).toBe(false);
      expect((await back.push.list()).map((s) => s.id)).toEqual(['s2']);
      await back.close();
    });

    it('deliveries: kept ones are taken once, in order', async () => {
      const store = await factory.fresh();
      await store.deliveries.keep([pending('hook'), pending('ops')]);
      const back = await again(store);
      expect((await back.deliveries.take()).map((p) => p.channel)).toEqual(['hook', 'ops']);
      expect(await back.deliveries.take()).toEqual([]);
      await back.close();
    });

    it("boards: each heartbeat replaces that board's row; every board is listed by id", async () => {
      const store = await factory.fresh();
      await store.boards.beat({ id: 'b:8700', started_at: 1, seen_at: 10, machines: 3 });
      await store.boards.beat({ id: 'a:8700', started_at: 2, seen_at: 20, machines: 0 });
      await store.boards.beat({ id: 'b:8700', started_at: 1, seen_at: 30, machines: 4 });
      const back = await again(store);
      expect(await back.boards.list()).toEqual([
        { id: 'a:8700', started_at: 2, seen_at: 20, machines: 0 },
        { id: 'b:8700', started_at: 1, seen_at: 30, machines: 4 },
      ]);
      await back.close();
    });

    it('journal: an entry keeps the board that wrote it', async () => {
      const store = await factory.fresh();
      await store.journal.append({ ...entry(1), board: 'b:8700' });
      await store.journal.append(entry(2));
      const back = await again(store);
      expect(await back.journal.load()).toEqual([{ ...entry(1), board: 'b:8700' }, entry(2)]);
      await back.close();
    });

    it('records: the latest of each machine, read per board after a version, oldest first', async () => {
      const store = await factory.fresh();
      await store.records.publish('a', [
        { name: 'm1', record: '{"name":"m1","state":"up"}', meta: '{"m":null,"s":[]}' },
        { name: 'm2', record: '{"name":"m2","state":"up"}', meta: '{}' },
      ]);
      await store.records.publish('b', [{ name: 'm3', record: '{"name":"m3"}', meta: '{}' }]);
      const first = await store.records.since('a', 0, 100);
      expect(first.map((r) => [r.name, r.board, r.record, r.meta])).toEqual([
        ['m1', 'a', '{"name":"m1","state":"up"}', '{"m":null,"s":[]}'],
        ['m2', 'a', '{"name":"m2","state":"up"}', '{}'],
      ]);
      const cursor = Math.max(...first.map((r) => r.version));
      // m1 again from a, m2 now from b: a's reader sees m1 only, b's sees m2 and m3.
      await store.records.publish('a', [
        { name: 'm1', record: '{"name":"m1","state":"down"}', meta: '{}' },
      ]);
      await store.records.publish('b', [
        { name: 'm2', record: '{"name":"m2","state":"down"}', meta: '{}' },
      ]);
      const back = await again(store);
      expect((await back.records.since('a', cursor, 100)).map((r) => r.record)).toEqual([
        '{"name":"m1","state":"down"}',
      ]);
      expect((await back.records.since('b', 0, 100)).map((r) => r.name)).toEqual(['m3', 'm2']);
      expect(await back.records.since('b', 0, 1)).toHaveLength(1);
      const stop = await back.records.listen(() => undefined);
      await stop();
      await back.close();
    });

    it('claims: a key is had once within the window, and again after it', async () => {
      const store = await factory.fresh();
      const item = (key: string) => ({ key, event: `{"machine":"${key}"}` });
      const first = await store.claims.claim('a', [item('k1'), item('k2')], 100_000, 30_000);
      expect(first).toEqual(['k1', 'k2']);
      const again = await store.claims.claim('b', [item('k1'), item('k3')], 110_000, 30_000);
      // The embedded engine has one board: its claims are all its own, and none dies beside it.
      if (kind === 'sqlite') {
        expect(again).toEqual(['k1', 'k3']);
        await store.close();
        return;
      }
      expect(again).toEqual(['k3']);
      // a settles k1; a dies with k2 unsent: c takes k2 over, once.
      await store.claims.settle(['k1']);
      const taken = await store.claims.takeOver('c', ['a'], 0, 120_000);
      expect(taken).toEqual([{ key: 'k2', event: '{"machine":"k2"}' }]);
      expect(await store.claims.takeOver('d', ['a'], 0, 120_000)).toEqual([]);
      expect(await store.claims.claim('b', [item('k1')], 160_001, 30_000)).toEqual(['k1']);
      await store.close();
    });

    it('import: all in one go, and again without doubling anything or overwriting', async () => {
      const store = await factory.fresh();
      await store.journal.append(entry(1, 'already here'));
      const data = {
        journal: [entry(1, 'imported'), entry(2)],
        queue: [action('q-1', 'lab1', true), action('q-2')],
        identities: [identity('a')],
        silences: [{ name: 'a', until: 1_700_000_600_000, reason: 'r' }],
        deliveries: [pending('hook')],
      };
      await store.importAll(data);
      await store.importAll({ ...data, deliveries: [] });
      const back = await again(store);
      expect(await back.journal.load()).toEqual([entry(1, 'already here'), entry(2)]);
      expect(await back.queue.load()).toEqual(data.queue);
      expect(await back.identities.load()).toEqual(data.identities);
      expect(await back.silences.load()).toEqual(data.silences);
      expect((await back.deliveries.take()).length).toBe(1);
      await back.close();
    });
  });
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.js';
import { createLogger } from '../../shared/logger.js';
import { EventHub } from '../domain/events.js';
import { Journal, type JournalStore } from '../domain/journal.js';
import { Registry } from '../domain/registry.js';
import { BOARD_WHO } from '../domain/who.js';
import type { JournalEntry } from '../schemas.js';
import { MemoryStore as MemoryState } from '../store/memory/state-store.js';
import { SilenceStore } from '../store/silence-store.js';
import { machineMemory } from '../view/machine-memory.js';
import { recordBytes } from '../view/machine-record.js';
import type { NotifyConfigFile } from './config.js';
import type { SendResult } from './deliver.js';
import type { OutgoingMessage } from './event.js';
import { Notifier } from './notifier.js';
import { Silences } from './silences.js';
import { changeSet, settingsOf, went } from './test-kit.js';

class MemoryStore implements JournalStore {
  entries: JournalEntry[] = [];
  append(entry: JournalEntry): Promise<void> {
    this.entries.push(entry);
    return Promise.resolve();
  }
  remove(): Promise<void> {
    return Promise.resolve();
  }
}

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const T0 = Date.parse('2026-01-01T00:00:00Z');
const CHANNELS = [
  { name: 'hook', url: 'http://127.0.0.1:9/hook' },
  { name: 'ops', url: 'ntfy://127.0.0.1:9/ops' },
];

function setup(
  notify: NotifyConfigFile,
  send?: (name: string, m: OutgoingMessage) => Promise<SendResult>,
) {
  const dataDir = mkdtempSync(join(tmpdir(), 'panoptes-notifier-'));
  dirs.push(dataDir);
  const clock = new ManualClock(T0);
  const registry = new Registry(clock, new EventHub(), [], 100, machineMemory(clock));
  const store = new MemoryStore();
  const state = new MemoryState();
  const journal = new Journal(clock, new EventHub(), store, []);
  const silences = new Silences(clock, registry, journal, new SilenceStore(state.silences));
  const sent: { channel: string; message: OutgoingMessage }[] = [];
  const notifier = new Notifier(
    {
      clock,
      journal,
      logger: createLogger('test', 'silent'),
      deliveries: state.deliveries,
      publicUrl: null,
      silenced: (name, now) => silences.silenced(name, now),
      backoffMs: [1, 1],
      send: (channel, message) => {
        sent.push({ channel: channel.name, message });
        return (
          send?.(channel.name, message) ?? Promise.resolve({ ok: true, status: 200, tries: 1 })
        );
      },
    },
    settingsOf(notify),
  );
  const journaled = async (op: string) => {
    await notifier.idle();
    await new Promise((r) => setTimeout(r, 0));
    return store.entries
      .filter((e) => e.op === op)
      .map((e) => `${e.target} ${e.outcome}: ${e.detail}`);
  };
  return { clock, registry, notifier, silences, sent, journaled, dataDir, state };
}

describe('notifier', () => {
  it('1,000 machines down in one sweep: exactly one message per channel, each journaled once', async () => {
    const { notifier, sent, journaled } = setup({
      channels: CHANNELS,
      rules: [{ events: ['down'], channels: ['hook', 'ops'] }],
    });
    const names = Array.from({ length: 1000 }, (_, i) => `m${i}`);
    notifier.onChangeSet(
      changeSet(T0, { transitions: names.map((n) => went(n, T0, 'down', 'up')) }),
    );
    await notifier.idle();
    expect(sent.map((s) => [s.channel, s.message.events.length])).toEqual([
      ['hook', 1000],
      ['ops', 1000],
    ]);
    expect(await journaled('notify')).toEqual([
      'hook delivered: 1000 down (m0, m1, m2, m3, m4 and 995 more) delivered',
      'ops delivered: 1000 down (m0, m1, m2, m3, m4 and 995 more) delivered',
    ]);
  });

  it('a failed delivery is journaled once with its final outcome and reason', async () => {
    const { notifier, journaled } = setup(
      { channels: CHANNELS, rules: [{ events: ['down'], channels: ['hook'] }] },
      () =>
        Promise.resolve({ ok: false, status: 404, tries: 1, why: 'answered 404', aborted: false }),
    );
    notifier.onChangeSet(changeSet(T0, { transitions: [went('a', T0, 'down', 'up')] }));
    expect(await journaled('notify')).toEqual([
      'hook failed: 1 down (a) not delivered: answered 404',
    ]);
  });

  it('a full queue refuses the message at once and journals it as failed', async () => {
    const never = new Promise<SendResult>(() => {});
    const { notifier, sent } = setup(
      {
        channels: CHANNELS,
        rules: [{ events: ['down'], channels: ['hook'], repeat: 1 }],
        queue: 1,
      },
      () => never,
    );
    notifier.onChangeSet(changeSet(T0, { transitions: [went('a', T0, 'down', 'up')] }));
    notifier.onChangeSet(changeSet(T0 + 1000));
    notifier.onChangeSet(changeSet(T0 + 2000));
    expect(sent).toHaveLength(1);
    expect(notifier.pending()).toBe(1);
    expect(notifier.deliveryCounts().get('hook')).toEqual({ delivered: 0, failed: 2, silenced: 0 });
  });

  it('a silenced machine sends nothing and is journaled as silenced; the silence ends by itself', async () => {
    const { clock, registry, notifier, silences, sent, journaled } = setup({
      channels: CHANNELS,
      rules: [{ events: ['down', 'up'], channels: ['hook'] }],
    });
    registry.announce('lab1', 'http://lab1:8701');
    const answer = await silences.set(BOARD_WHO, 'lab1', 10, 'disk swap');
    expect(answer.status).toBe(200);
    const lab1 = registry.get('lab1');
    expect(lab1 === undefined ? '' : recordBytes(lab1).toString()).toContain(
      '"silenced_until":"2026-01-01T00:10:00.000Z"',
    );
    notifier.onChangeSet(
      changeSet(clock.now(), { transitions: [went('lab1', clock.now(), 'down', 'up')] }),
    );
    expect(sent).toHaveLength(0);
    expect(await journaled('notify')).toEqual(['hook silenced: 1 down (lab1) held back: silenced']);
    clock.advance(10 * 60_000);
    await silences.expire(clock.now());
    expect(registry.get('lab1')?.silencedUntil).toBeNull();
    expect(await journaled('silence')).toEqual([
      'lab1 silenced: notifications silenced for 10 min, until 2026-01-01T00:10:00.000Z: disk swap',
      'lab1 unsilenced: silence ran out',
    ]);
    // Still down when the silence ended: it is sent now.
    notifier.onChangeSet(changeSet(clock.now()));
    await notifier.idle();
    expect(sent.map((s) => s.message.events[0]?.event)).toEqual(['down']);
  });

  it('silences survive a restart (the snapshot file), expired ones do not', async () => {
    const first = setup({});
    first.registry.announce('lab1', 'http://lab1:8701');
    first.registry.announce('lab2', 'http://lab2:8701');
    await first.silences.set(BOARD_WHO, 'lab1', 60, 'maintenance');
    await first.silences.set(BOARD_WHO, 'lab2', 1, '');
    // A new board over the same data directory, two minutes later.
    const clock = new ManualClock(T0 + 2 * 60_000);
    const registry = new Registry(clock, new EventHub(), [], 100, machineMemory(clock));
    registry.announce('lab1', 'http://lab1:8701');
    registry.announce('lab2', 'http://lab2:8701');
    const journal = new Journal(clock, new EventHub(), new MemoryStore(), []);
    const silences = new Silences(
      clock,
      registry,
      journal,
      new SilenceStore(first.state.silences, await first.state.silences.load()),
    );
    silences.restore();
    expect(registry.get('lab1')?.silencedUntil).toBe(T0 + 60 * 60_000);
    expect(silences.reason('lab1')).toBe('maintenance');
    expect(registry.get('lab2')?.silencedUntil).toBeNull();
  });

  it('configure() swaps channels and rules; a kept rule does not send a down twice', async () => {
    const { notifier, sent } = setup({
      channels: CHANNELS,
      rules: [{ events: ['down'], channels: ['hook'] }],
    });
    notifier.onChangeSet(changeSet(T0, { transitions: [went('a', T0, 'down', 'up')] }));
    notifier.configure(
      settingsOf({
        channels: CHANNELS,
        rules: [
          { events: ['down'], channels: ['hook'] },
          { events: ['down'], channels: ['ops'] },
        ],
      }),
    );
    notifier.onChangeSet(changeSet(T0 + 1000));
    await notifier.idle();
    expect(sent.map((s) => s.channel)).toEqual(['hook', 'ops']);
    expect(notifier.describe().rules).toHaveLength(2);
  });
});

import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.js';
import { machineMemory } from '../view/machine-memory.js';
import type { AgentClient } from './agent-client.js';
import { EventHub } from './events.js';
import type { Observation } from './machine.js';
import { Registry } from './registry.js';
import { sweep } from './sweep.js';

const KEY = 'machine-key-0123456789';
const TIMEOUT_MS = 3000;

/**
 * A client whose dead machines answer only when `release()` is called, after the clock has
 * moved by the whole time-out, as a machine that accepts and never answers would.
 */
function scriptedClient(clock: ManualClock, dead: Set<string>) {
  const log: string[] = [];
  let pending: (() => void)[] = [];
  const client: AgentClient = {
    overview(target) {
      const name = target.url.slice('http://'.length);
      log.push(`start ${name}`);
      if (!dead.has(name)) {
        log.push(`end ${name}`);
        return Promise.resolve({ ok: true, overview: { name } });
      }
      return new Promise<Observation>((resolve) => {
        pending.push(() => {
          log.push(`end ${name}`);
          resolve({ ok: false, error: `no answer within ${TIMEOUT_MS / 1000} s` });
        });
      });
    },
    relay: () => Promise.reject(new Error('not used')),
    requestUpdate: () => Promise.reject(new Error('not used')),
    handChecks: () => Promise.reject(new Error('not used')),
    close: () => Promise.resolve(),
  };
  const release = () => {
    clock.advance(TIMEOUT_MS);
    const now = pending;
    pending = [];
    for (const r of now) r();
  };
  return { client, log, release, waiting: () => pending.length };
}

describe('sweep', () => {
  it('polls the machines that were silent last time all at once, beside the others', async () => {
    const clock = new ManualClock();
    const names = ['dead1', 'dead2', 'dead3', 'good1', 'good2'];
    const machines = names.map((name) => ({ name, url: `http://${name}`, location: '', key: KEY }));
    const registry = new Registry(clock, new EventHub(), machines, 0, machineMemory(clock));
    const dead = new Set(['dead1', 'dead2', 'dead3']);
    const { client, log, release, waiting } = scriptedClient(clock, dead);
    const silent = new Set<string>();
    const options = { timeoutMs: TIMEOUT_MS, concurrency: 1, silent };

    const first = sweep(registry, machines, client, clock, options);
    for (let i = 0; i < 50 && waiting() < 3; i++) await Promise.resolve();
    release();
    await first;
    expect(silent).toEqual(dead);

    log.length = 0;
    const second = sweep(registry, machines, client, clock, options);
    for (let i = 0; i < 20; i++) await Promise.resolve();
    // With one slot for answering machines, the three silent ones are all waiting at once
    // and the good ones have been polled meanwhile: nobody waited for a dead machine.
    expect(waiting()).toBe(3);
    expect(log).toEqual(expect.arrayContaining(['end good1', 'end good2']));
    expect(log.filter((l) => l.startsWith('end dead'))).toEqual([]);
    release();
    await second;
    expect(registry.get('good1')?.state).toBe('up');
    expect(registry.get('dead2')?.error).toBe('no answer within 3 s');
  });

  it('a machine that answers again leaves the silent lane', async () => {
    const clock = new ManualClock();
    const machines = [{ name: 'm1', url: 'http://m1', location: '', key: KEY }];
    const registry = new Registry(clock, new EventHub(), machines, 0, machineMemory(clock));
    const dead = new Set(['m1']);
    const { client, release, waiting } = scriptedClient(clock, dead);
    const silent = new Set<string>();
    const options = { timeoutMs: TIMEOUT_MS, concurrency: 4, silent };
    const first = sweep(registry, machines, client, clock, options);
    for (let i = 0; i < 50 && waiting() < 1; i++) await Promise.resolve();
    release();
    await first;
    expect(silent.has('m1')).toBe(true);
    dead.delete('m1');
    await sweep(registry, machines, client, clock, options);
    expect(silent.has('m1')).toBe(false);
    expect(registry.get('m1')?.state).toBe('up');
  });
});

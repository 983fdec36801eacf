import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Receiver } from './channels/receivers.js';
import type { Channel } from './config.js';
import { deliver, type SendResult } from './deliver.js';
import { DeliveryQueue } from './delivery-queue.js';
import { asIs } from './markup.js';
import type { Pending } from './ports.js';
import { renderMessage } from './render.js';
import { settingsOf } from './test-kit.js';

const message = renderMessage(
  [{ event: 'down', machine: 'a', at: '2026-01-01T00:00:00Z' }],
  null,
  null,
  asIs,
);

function queue(max: number, send: (c: Channel) => Promise<SendResult>, channels: Channel[]) {
  const outcomes: string[] = [];
  const q = new DeliveryQueue({
    max: () => max,
    timeoutMs: () => 1000,
    concurrency: 1,
    channel: (name) => channels.find((c) => c.name === name) ?? null,
    report: {
      delivered: (name) => outcomes.push(`${name} delivered`),
      failed: (name, _m, why) => outcomes.push(`${name} failed: ${why}`),
    },
    send: (c) => send(c),
  });
  return { q, outcomes };
}

describe('delivery queue', () => {
  const channels = settingsOf({
    channels: [{ name: 'hook', url: 'http://127.0.0.1:9/' }],
  }).channels;

  it('is bounded: past `max` messages waiting or in flight, enqueue refuses at once', async () => {
    let release = () => {};
    const stuck = new Promise<SendResult>((resolve) => {
      release = () => resolve({ ok: true, status: 200, tries: 1 });
    });
    const { q, outcomes } = queue(3, () => stuck, channels);
    const item: Pending = { channel: 'hook', message };
    expect([q.enqueue(item), q.enqueue(item), q.enqueue(item), q.enqueue(item)]).toEqual([
      true,
      true,
      true,
      false,
    ]);
    expect(q.size()).toBe(3);
    release();
    await q.idle();
    expect(outcomes).toEqual(['hook delivered', 'hook delivered', 'hook delivered']);
    expect(q.enqueue(item)).toBe(true);
    await q.idle();
  });

  it('close() hands back what never started, takes no more, and cuts what is in flight', async () => {
    let aborted = 0;
    const send = (_c: Channel, _m: unknown, o: { signal?: AbortSignal }) =>
      new Promise<SendResult>((resolve) => {
        o.signal?.addEventListener('abort', () => {
          aborted += 1;
          resolve({ ok: false, status: null, tries: 1, why: 'the board shut down', aborted: true });
        });
      });
    const outcomes: string[] = [];
    const q = new DeliveryQueue({
      max: () => 10,
      timeoutMs: () => 1000,
      concurrency: 1,
      channel: (name) => channels.find((c) => c.name === name) ?? null,
      report: {
        delivered: (name) => outcomes.push(`${name} delivered`),
        failed: (name) => outcomes.push(`${name} failed`),
      },
      send,
    });
    const first: Pending = { channel: 'hook', message };
    const second: Pending = { channel: 'hook', message: { ...message, title: 'second' } };
    q.enqueue(first);
    q.enqueue(second);
    const left = await q.close(10);
    expect(q.enqueue(first)).toBe(false);
    expect(aborted).toBe(1);
    // Neither was delivered nor reported failed: both are kept for the next start.
    expect(left.map((p) => p.message.title).sort()).toEqual([message.title, 'second'].sort());
    expect(outcomes).toEqual([]);
  });
});

describe('deliver: time-outs and network errors are retried, with backoff', () => {
  const receiver = new Receiver();
  beforeAll(() => receiver.start());
  afterAll(() => receiver.stop());

  it('a receiver that never answers is tried 3 times, each cut at the time-out', async () => {
    receiver.requests.length = 0;
    receiver.answer = () => ({ status: 0 });
    const [channel] = settingsOf({
      channels: [{ name: 'h', url: `http://${receiver.host}/x` }],
    }).channels;
    const result = await deliver(channel?.parsed as Channel['parsed'], message, {
      timeoutMs: 200,
      backoffMs: [1, 1],
    });
    expect(result).toMatchObject({ ok: false, tries: 3, status: null });
    if (!result.ok) expect(result.why).toMatch(/no answer within 0.2 s \(after 3 tries\)/);
    expect(receiver.requests.length).toBe(3);
  });

  it('a refused connection is retried; 5xx then 200 is delivered on the last try', async () => {
    const [closed] = settingsOf({
      channels: [{ name: 'h', url: 'http://127.0.0.1:9/x' }],
    }).channels;
    const refused = await deliver(closed?.parsed as Channel['parsed'], message, {
      timeoutMs: 1000,
      backoffMs: [1, 1],
    });
    expect(refused).toMatchObject({ ok: false, tries: 3 });
    if (!refused.ok) expect(refused.why).toContain('ECONNREFUSED');

    receiver.requests.length = 0;
    receiver.answer = () => (receiver.requests.length < 3 ? { status: 502 } : { status: 204 });
    const [channel] = settingsOf({
      channels: [{ name: 'h', url: `http://${receiver.host}/x` }],
    }).channels;
    const result = await deliver(channel?.parsed as Channel['parsed'], message, {
      timeoutMs: 1000,
      backoffMs: [1, 1],
    });
    expect(result).toEqual({ ok: true, status: 204, tries: 3 });
  });
});

import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { BoardApp } from './app.js';
import { startScheduler } from './scheduler.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('startScheduler', () => {
  it('writes the heartbeat every second while a pull of the cluster takes longer', async () => {
    vi.useFakeTimers();
    let beats = 0;
    let pulls = 0;
    const never = new Promise<void>(() => undefined);
    const boardApp = {
      board: { sweep: () => never, upkeep: async () => undefined },
      ownership: {
        sweepStarting: () => undefined,
        boardsLost: () => false,
      },
      coordinator: {
        // The first pull hangs (a slow store): the heartbeat must not wait for it.
        pull: () => {
          pulls += 1;
          return never;
        },
      },
      membership: {
        beat: async () => {
          beats += 1;
        },
      },
      settings: () => ({ sweepIntervalMs: 1000 }),
    } as unknown as BoardApp;
    const scheduler = startScheduler(boardApp, pino({ enabled: false }));
    await vi.advanceTimersByTimeAsync(5000);
    expect(beats).toBe(5);
    // One pull at a time: the later heartbeats do not pile pulls on the hanging one.
    expect(pulls).toBe(1);
    void scheduler.stop();
  });
});

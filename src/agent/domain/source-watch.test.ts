import { describe, expect, it } from 'vitest';
import type { GpuView } from '../../shared/wire/overview.js';
import { ManualClock } from './manual-clock.js';
import {
  SOURCE_ABSENT_RECHECK_MS,
  SOURCE_ERROR_MAX,
  type SourceRead,
  SourceWatch,
  sourceErrorText,
} from './source-watch.js';

const GPU = {
  index: 0,
  name: 'NVIDIA L40S',
  util: 0.09,
  mem_used: 1,
  mem_total: 2,
  temp_c: 54,
  power_w: 110.23,
};

/** A reader whose answers the test gives by hand; it records each read's time-out. */
function manualReader() {
  const reads: { timeoutMs: number; answer: (r: SourceRead<GpuView[]>) => void }[] = [];
  let cancelled = 0;
  return {
    reads,
    get cancelled() {
      return cancelled;
    },
    reader: {
      read: (timeoutMs: number) =>
        new Promise<SourceRead<GpuView[]>>((answer) => reads.push({ timeoutMs, answer })),
      // As the real reader: a cancelled read ends (as a failure).
      cancel: () => {
        cancelled += 1;
        reads.at(-1)?.answer({ kind: 'failed', reason: 'cancelled' });
      },
    },
  };
}

/** A started watch of the GPUs, read by `r`, every `intervalMs`. */
function gpuWatch(r: ReturnType<typeof manualReader>, clock: ManualClock, intervalMs: number) {
  const watch = new SourceWatch<GpuView[]>({ field: 'gpus', reader: r.reader, clock, intervalMs });
  watch.start();
  return watch;
}

describe('SourceWatch (the GPUs as the example)', () => {
  it('reads at start and once per interval, one read at a time, the overview never waiting', async () => {
    const clock = new ManualClock();
    const r = manualReader();
    const watch = gpuWatch(r, clock, 10_000);
    await clock.advance(0);
    expect(r.reads).toHaveLength(1);
    expect(r.reads[0]?.timeoutMs).toBe(5000);
    expect(watch.state()).toEqual({});
    // A slow tool: nothing new starts while it runs, however long.
    await clock.advance(30_000);
    expect(r.reads).toHaveLength(1);
    r.reads[0]?.answer({ kind: 'ok', value: [GPU] });
    await clock.advance(0);
    expect(watch.state()).toEqual({ gpus: [GPU] });
    // It ran past its interval: the next read waits a whole interval after it.
    await clock.advance(9_999);
    expect(r.reads).toHaveLength(1);
    await clock.advance(1);
    expect(r.reads).toHaveLength(2);
    // A quick read: the next starts an interval after this one started.
    await clock.advance(2000);
    r.reads[1]?.answer({ kind: 'ok', value: [] });
    await clock.advance(7999);
    expect(r.reads).toHaveLength(2);
    await clock.advance(1);
    expect(r.reads).toHaveLength(3);
    await watch.stop();
  });

  it('a failure gives gpus_error (one clean line) instead of the old GPUs', async () => {
    const clock = new ManualClock();
    const r = manualReader();
    const watch = gpuWatch(r, clock, 2000);
    await clock.advance(0);
    expect(r.reads[0]?.timeoutMs).toBe(2000);
    r.reads[0]?.answer({ kind: 'ok', value: [GPU] });
    await clock.advance(2000);
    r.reads[1]?.answer({
      kind: 'failed',
      reason: 'nvidia-smi exited with code 9:\nNVIDIA-SMI has failed',
    });
    await clock.advance(0);
    expect(watch.state()).toEqual({
      gpus_error: 'nvidia-smi exited with code 9: NVIDIA-SMI has failed',
    });
    await clock.advance(2000);
    r.reads[2]?.answer({ kind: 'ok', value: [GPU] });
    await clock.advance(0);
    expect(watch.state()).toEqual({ gpus: [GPU] });
    await watch.stop();
  });

  it('no tool: no GPU fields, and the PATH is searched again only every few minutes', async () => {
    const clock = new ManualClock();
    const r = manualReader();
    const watch = gpuWatch(r, clock, 10_000);
    await clock.advance(0);
    r.reads[0]?.answer({ kind: 'absent' });
    await clock.advance(SOURCE_ABSENT_RECHECK_MS - 1);
    expect(r.reads).toHaveLength(1);
    expect(watch.state()).toEqual({});
    await clock.advance(1);
    expect(r.reads).toHaveLength(2);
    // Drivers installed since: found, then read every interval.
    r.reads[1]?.answer({ kind: 'ok', value: [GPU] });
    await clock.advance(10_000);
    expect(r.reads).toHaveLength(3);
    expect(watch.state()).toEqual({ gpus: [GPU] });
    await watch.stop();
  });

  it('stop cancels the read in flight and schedules nothing more', async () => {
    const clock = new ManualClock();
    const r = manualReader();
    const watch = gpuWatch(r, clock, 1000);
    await clock.advance(0);
    await watch.stop();
    expect(r.cancelled).toBe(1);
    expect(watch.state()).toEqual({});
    await clock.advance(60_000);
    expect(r.reads).toHaveLength(1);
    expect(clock.timers).toBe(0);
  });
});

describe('sourceErrorText', () => {
  it('makes one short line of any failure', () => {
    expect(sourceErrorText('nvidia-smi exited\r\nwith \u0007code 9\n')).toBe(
      'nvidia-smi exited with \ufffdcode 9',
    );
    const long = sourceErrorText('x'.repeat(500));
    expect(long).toHaveLength(SOURCE_ERROR_MAX);
    expect(long.endsWith('…')).toBe(true);
    expect(sourceErrorText('  ')).toBe('failed');
  });
});

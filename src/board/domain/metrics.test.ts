import { describe, expect, it } from 'vitest';
import {
  busiestGpu,
  DISKS_MAX,
  GPUS_KEPT,
  gpusOf,
  metricsOf,
  SESSIONS_MAX,
  sessionsOf,
} from './metrics.js';

describe('sessionsOf', () => {
  it('cleans what an agent that does not refuse bad text sent: no control or bidi characters', () => {
    const sessions = sessionsOf({
      sessions: [
        { session: 'ci\u202e7', why: 'attention', text: 'line 1\nline 2\r\u001b[2J', at: 'now' },
      ],
    });
    expect(sessions).toEqual([
      { session: 'ci\ufffd7', why: 'attention', text: 'line 1\nline 2\ufffd\ufffd[2J', at: 'now' },
    ]);
  });
});

describe('disks and sessions of an overview', () => {
  const GIB = 1024 ** 3;
  const bell = (i: number, why = 'attention') => ({ session: `s${i}`, why, text: 't', at: 'now' });

  it('never trusts the shape: bad entries skipped, the first DISKS_MAX read, paths cut', () => {
    const disks: unknown[] = [
      { path: '/', total: 100 * GIB, used: 25 * GIB },
      null,
      { path: '/no-total', used: 1 },
      { path: 7, total: 1, used: 1 },
      { path: '/zero', total: 0, used: 0 },
      { path: `/${'x'.repeat(300)}`, total: 4, used: 3 },
      'disk',
    ];
    for (let i = disks.length; i < DISKS_MAX + 5; i++)
      disks.push({ path: `/d${i}`, total: 2, used: 2 });
    const m = metricsOf({ disks }, null, []);
    expect(m.disks.map((d) => d.path.length)).toEqual([
      1,
      200,
      ...Array.from({ length: DISKS_MAX - 7 }, (_, k) => `/d${k + 7}`.length),
    ]);
    expect(m.disks[0]?.ratio).toBe(0.25);
    expect(m.disks[1]?.ratio).toBe(0.75);
    expect(m.disk).toBe(1);
    // A list of its own length, every place filled: it is kept until the next overview.
    expect(Object.keys(m.disks)).toHaveLength(m.disks.length);
    expect(metricsOf({ disks: 'none' }, null, []).disks).toEqual([]);
    expect(metricsOf({}, null, []).disk).toBeNull();
  });

  it('reads well-formed sessions only, the first SESSIONS_MAX, and counts the bells', () => {
    const listed: unknown[] = [bell(0), { session: 's', why: 'attention' }, 42, bell(1, 'error')];
    for (let i = 2; i < SESSIONS_MAX + 10; i++)
      listed.push(bell(i, i % 2 === 0 ? 'done' : 'attention'));
    const sessions = sessionsOf({ sessions: listed });
    expect(sessions).toHaveLength(SESSIONS_MAX - 2);
    expect(Object.keys(sessions)).toHaveLength(sessions.length);
    expect(sessions.slice(0, 3).map((s) => s.session)).toEqual(['s0', 's1', 's2']);
    // Read: listed[0, SESSIONS_MAX), of which s0 (attention), s1 (error) and s2…s197, the odd
    // ones attention: 2 + 98 bells.
    expect(metricsOf({ sessions: listed }, null, sessions).bells).toBe(100);
    expect(sessionsOf({ sessions: {} })).toEqual([]);
  });
});

describe('GPUs of an overview', () => {
  const MIB = 1024 * 1024;
  const h100 = {
    index: 0,
    name: 'NVIDIA H100 80GB HBM3',
    util: 1,
    mem_used: 19818 * MIB,
    mem_total: 81559 * MIB,
    temp_c: 59,
    power_w: 631.95,
  };
  const l40s = { ...h100, index: 1, name: 'NVIDIA L40S', util: 0.09, mem_used: 1235 * MIB };

  it('records the busiest GPU: the highest util, then the fullest memory', () => {
    const m = metricsOf({ gpus: [l40s, h100] }, null);
    expect(m.gpuUtil).toBe(1);
    expect(m.gpuMem).toBeCloseTo(19818 / 81559, 10);
    expect(m.gpus.map((g) => g.index)).toEqual([1, 0]);
    expect(m.gpus[1]).toEqual({
      index: 0,
      name: 'NVIDIA H100 80GB HBM3',
      util: 1,
      memUsedBytes: 19818 * MIB,
      memTotalBytes: 81559 * MIB,
      tempC: 59,
      powerW: 631.95,
    });
    const tie = metricsOf(
      {
        gpus: [
          { ...l40s, util: 0.5 },
          { ...h100, util: 0.5 },
        ],
      },
      null,
    );
    expect(tie.gpuMem).toBeCloseTo(19818 / 81559, 10);
    const unknown = busiestGpu(metricsOf({ gpus: [{ ...l40s, util: null }, h100] }, null).gpus);
    expect(unknown?.index).toBe(0);
  });

  it('no gpus, or gpus_error: no GPU numbers', () => {
    for (const overview of [{}, { gpus_error: 'nvidia-smi exited with code 9' }, { gpus: [] }]) {
      const m = metricsOf(overview, null);
      expect([m.gpuUtil, m.gpuMem, m.gpus]).toEqual([null, null, []]);
    }
  });

  it('never trusts the shape: bad entries skipped, bad fields null, at most 16, names cleaned', () => {
    const gpus = gpusOf([
      null,
      'x',
      { index: -1 },
      { index: 1.5 },
      { index: 2, name: 'a\u001bb'.repeat(100), util: 7, mem_used: 'lots', temp_c: Number.NaN },
      { index: 2, name: 'twice' },
      ...Array.from({ length: 40 }, (_, i) => ({ index: 10 + i, util: -1 })),
    ]);
    expect(gpus[0]).toEqual({
      index: 2,
      name: 'a\ufffdb'.repeat(100).slice(0, 200),
      util: 1,
      memUsedBytes: null,
      memTotalBytes: null,
      tempC: null,
      powerW: null,
    });
    expect(gpus.length).toBeLessThanOrEqual(GPUS_KEPT);
    expect(gpus[1]?.util).toBe(0);
    expect(gpusOf({ 0: h100 })).toEqual([]);
  });
});

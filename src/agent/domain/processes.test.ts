import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../../harness/root.js';
import {
  busiest,
  ProcessCpu,
  type ProcStat,
  parsePasswd,
  parseProcStat,
  parseProcStatus,
  processEntry,
} from './processes.js';

/** A file of the /proc tree recorded on a real machine (test/fixtures/proc, see its README). */
const recorded = (path: string) => readFileSync(join(ROOT, 'test/fixtures/proc', path), 'utf8');

describe('parseProcStat', () => {
  it('reads name, CPU ticks, start and resident pages of a real stat line', () => {
    expect(parseProcStat(recorded('24256/stat'))).toEqual({
      pid: 24256,
      comm: 'node',
      ticks: 248 + 5,
      startTicks: 967201,
      rssPages: 27235,
    });
    // A kernel thread: no CPU yet, no resident memory.
    expect(parseProcStat(recorded('2/stat'))).toEqual({
      pid: 2,
      comm: 'kthreadd',
      ticks: 0,
      startTicks: 24,
      rssPages: 0,
    });
  });

  it("takes a name with spaces and ')' whole: up to the last parenthesis", () => {
    // The process set its own name to "my) (odd name" (prctl), as any process may.
    expect(parseProcStat(recorded('24260/stat'))).toEqual({
      pid: 24260,
      comm: 'my) (odd name',
      ticks: 3,
      startTicks: 967201,
      rssPages: 3346,
    });
    const fake =
      '77 (a) 1 2 3 4 5 6 7 8 9 10 11 12 13) R 1 1 1 0 -1 0 0 0 0 0 40 2 0 0 20 0 1 0 500 1 9';
    expect(parseProcStat(fake)).toMatchObject({
      comm: 'a) 1 2 3 4 5 6 7 8 9 10 11 12 13',
      ticks: 42,
    });
  });

  it('malformed text is null, not a guess', () => {
    expect(parseProcStat('')).toBeNull();
    expect(parseProcStat('12 no-parens S 1')).toBeNull();
    expect(parseProcStat('12 (short) S 1 2 3')).toBeNull();
    expect(parseProcStat('x (name) S 1 1 1 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 5 1 1')).toBeNull();
  });
});

describe('parseProcStatus and parsePasswd', () => {
  it('gives the effective uid and VmRSS in bytes; a kernel thread has no VmRSS', () => {
    expect(parseProcStatus(recorded('24256/status'))).toEqual({
      uid: 65534,
      rssBytes: 109072 * 1024,
    });
    expect(parseProcStatus(recorded('2/status'))).toEqual({ uid: 0, rssBytes: null });
    // Real, effective, saved, filesystem: ps shows the effective one.
    expect(parseProcStatus('Uid:\t1000\t0\t0\t0\n').uid).toBe(0);
  });

  it('maps uids to names, the first name of a uid winning', () => {
    const users = parsePasswd(readFileSync(join(ROOT, 'test/fixtures/passwd'), 'utf8'));
    expect(users.get(0)).toBe('root');
    expect(users.get(65534)).toBe('nobody');
    expect(users.get(4321)).toBeUndefined();
    const twice = parsePasswd('# comment\nroot:x:0:0::/:/bin/sh\ntoor:x:0:0::/:/bin/sh\n\nbad\n');
    expect([...twice]).toEqual([[0, 'root']]);
  });
});

const stat = (pid: number, ticks: number, startTicks: number, rssPages = 0): ProcStat => ({
  pid,
  comm: `p${pid}`,
  ticks,
  startTicks,
  rssPages,
});

describe('ProcessCpu', () => {
  it('first read: each process its average over its life, of all CPUs', () => {
    const cpu = new ProcessCpu(2);
    const stats = ['1', '2', '24255', '24256', '24260'].map((p) =>
      parseProcStat(recorded(`${p}/stat`)),
    );
    const shares = cpu.shares({
      uptimeS: Number(recorded('uptime').split(' ')[0]),
      stats: stats.filter((s): s is ProcStat => s !== null),
    });
    // node: 253 ticks in its 2.67 s of life (9674.68 − 9672.01), on 2 CPUs of 100 ticks a second.
    expect(shares.get(24256)).toBe(0.4738);
    expect(shares.get(24260)).toBe(0.0056);
    expect(shares.get(1)).toBe(0.0032);
    expect(shares.get(2)).toBe(0);
  });

  it('then: the ticks since the previous read over the ticks all CPUs had', () => {
    const cpu = new ProcessCpu(4);
    cpu.shares({ uptimeS: 100, stats: [stat(10, 1000, 0), stat(11, 50, 9000)] });
    // 2 s later on 4 CPUs: 800 ticks in all. 10 used 200, 11 used 800 (every CPU, all the time).
    const shares = cpu.shares({
      uptimeS: 102,
      stats: [stat(10, 1200, 0), stat(11, 850, 9000), stat(12, 30, 10_100)],
    });
    expect(shares.get(10)).toBe(0.25);
    expect(shares.get(11)).toBe(1);
    // New since the last read (started at 101 s, 1 s ago): its life's average.
    expect(shares.get(12)).toBe(30 / (1 * 400));
  });

  it('a reused pid (another start time) starts over; shares stay within 0–1', () => {
    const cpu = new ProcessCpu(1);
    cpu.shares({ uptimeS: 50, stats: [stat(10, 4000, 0)] });
    const shares = cpu.shares({ uptimeS: 60, stats: [stat(10, 100, 5500)] });
    // Not −3900 ticks: a new process with 100 ticks in its 5 s.
    expect(shares.get(10)).toBe(0.2);
    const over = cpu.shares({ uptimeS: 61, stats: [stat(10, 400, 5500)] });
    expect(over.get(10)).toBe(1);
    // The uptime did not move (two reads within one tick of it): the life's average (6 s) again.
    expect(cpu.shares({ uptimeS: 61, stats: [stat(10, 400, 5500)] }).get(10)).toBe(0.6667);
  });
});

describe('busiest', () => {
  it('the top by CPU, then those of the top by memory not already in', () => {
    const stats = [stat(1, 0, 0, 900), stat(2, 0, 0, 10), stat(3, 0, 0, 500), stat(4, 0, 0, 1)];
    const shares = new Map([
      [1, 0.01],
      [2, 0.5],
      [3, 0],
      [4, 0.2],
    ]);
    expect(busiest(stats, shares, 2).map((s) => s.pid)).toEqual([2, 4, 1, 3]);
    // Process 2 is among both: listed once.
    expect(busiest(stats, new Map([[1, 0.9]]), 2).map((s) => s.pid)).toEqual([1, 2, 3]);
  });

  it('never more than 20 of a large table, with ties in pid order', () => {
    const many = Array.from({ length: 500 }, (_, i) => stat(i + 1, 0, 0, 0));
    const picked = busiest(many, new Map());
    expect(picked.map((s) => s.pid)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const spread = Array.from({ length: 500 }, (_, i) => stat(i + 1, 0, 0, i));
    const shares = new Map(spread.map((s) => [s.pid, 1 / s.pid]));
    expect(busiest(spread, shares)).toHaveLength(20);
  });
});

describe('processEntry', () => {
  it('cleans the name and user to one short line', () => {
    expect(processEntry(stat(5, 0, 0), 0.5, 'alice', 4096)).toEqual({
      pid: 5,
      name: 'p5',
      user: 'alice',
      cpu: 0.5,
      mem: 4096,
    });
    const odd = processEntry({ ...stat(6, 0, 0), comm: 'x\u001b[2J\ny' }, 2, 'u'.repeat(100), -1);
    expect(odd).toEqual({
      pid: 6,
      name: 'x\ufffd[2J\ufffdy',
      user: 'u'.repeat(64),
      cpu: 1,
      mem: 0,
    });
  });
});

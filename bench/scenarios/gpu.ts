import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { standInSmiEnv } from '../../harness/gpu.js';
import { token } from '../board-kit.js';
import { type Program, startAgent } from '../processes.js';
import { alternate } from '../wrk.js';
import type { BenchContext } from './context.js';

/** Seconds the stand-in nvidia-smi takes to answer (a slow driver). */
const SLOW_S = 2;
/** The GPU agent's gpu_interval: longer than the slow read, so that its reads succeed. */
const INTERVAL_S = 3;

/**
 * GPU hosts: the agent's GET /api/overview p99 with no nvidia-smi on its PATH beside
 * the same agent with the stand-in nvidia-smi (test/fixtures/gpu) taking 2 s per call, measured
 * in alternating rounds of the same run; and the stand-in's calls against the intervals that
 * passed (at most one call per interval).
 */
export async function gpuScenario(ctx: BenchContext): Promise<void> {
  const agentToken = token();
  const calls = join(ctx.tmp, 'gpu-calls');
  writeFileSync(calls, '');
  const start = (name: string, env: NodeJS.ProcessEnv): Promise<Program> =>
    startAgent(
      ctx.tmp,
      {
        name,
        token: agentToken,
        data_dir: join(ctx.tmp, `${name}-data`),
        gpu_interval: INTERVAL_S,
      },
      env,
    );
  const systemPath = process.env.PATH ?? '/usr/bin:/bin';
  const plain = await start('plain', { PATH: systemPath });
  const slow = await start('slow-gpu', standInSmiEnv({ sleepS: SLOW_S, calls }, systemPath));
  try {
    const headers = { authorization: `Bearer ${agentToken}` };
    // The first slow read has begun (the agent reads at start); the overview must not wait for it.
    const started = Date.now();
    const { rounds, seconds } = { rounds: ctx.options.mode === 'quick' ? 2 : 5, seconds: 2 };
    const result = await alternate(
      rounds,
      { url: `${slow.url}/api/overview`, connections: 4, durationS: seconds, headers },
      { url: `${plain.url}/api/overview`, connections: 4, durationS: seconds, headers },
    );
    const elapsedS = (Date.now() - started) / 1000;
    const answer = (await (await fetch(`${slow.url}/api/overview`, { headers })).json()) as {
      gpus?: unknown[];
    };
    if (!Array.isArray(answer.gpus) || answer.gpus.length !== 1)
      ctx.problems.push('gpu: the agent with the stand-in nvidia-smi has no gpus in its overview');
    if (result.board.errors + result.board.non2xx + result.bare.errors + result.bare.non2xx > 0)
      ctx.problems.push('gpu: GET /api/overview had errors');
    ctx.rows.push({
      what: `agent GET /api/overview p99, nvidia-smi taking ${SLOW_S} s (wrk -c4, best of ${rounds} × ${seconds} s)`,
      board: result.board.p99,
      unit: 'ms',
      baselineLabel: 'no nvidia-smi',
      baseline: result.bare.p99,
      ratio: result.board.p99 / result.bare.p99,
      goal: '≤ 1.5× (unchanged within noise)',
      met: result.board.p99 / result.bare.p99 <= 1.5,
    });
    const n = readFileSync(calls, 'utf8').trim().split('\n').filter(Boolean).length;
    // Reads start at least an interval apart, the first at start: at most ⌊elapsed / interval⌋ + 1.
    const allowed = Math.floor(elapsedS / INTERVAL_S) + 1;
    ctx.rows.push({
      what: `nvidia-smi calls in ${elapsedS.toFixed(0)} s (gpu_interval ${INTERVAL_S} s, each call ${SLOW_S} s)`,
      board: n,
      unit: '',
      baselineLabel: 'intervals begun',
      baseline: allowed,
      ratio: n / allowed,
      goal: '≤ 1 call per interval',
      met: n <= allowed,
    });
  } finally {
    await Promise.all([plain.stop(), slow.stop()]);
  }
}

import { request } from 'undici';
import { configuredMachines, token, writeBoardConfig } from '../board-kit.js';
import { Fleet, type Program } from '../processes.js';
import { median, sleep } from '../stats.js';
import { type BenchContext, count, launchBoard, RssSampler, scenarioDir } from './context.js';

/**
 * The soak: a board sweeping the large fleet every 5 s, taking reports from announcing
 * machines, serving GET /api/board and relaying an action now and then, for soakSeconds.
 * Leak check: RSS over the last minute against RSS just after the warm-up.
 */
export async function soakScenario(ctx: BenchContext): Promise<void> {
  const { options } = ctx;
  const n = options.fleetSizes[1];
  const announcers = Math.round(options.announcers / 3);
  const rate = announcers / options.reportIntervalS;
  const seconds = options.soakSeconds;
  // Agents and announcers in two simulator processes: at 10,000 agents the one serving them
  // holds ~19,000 descriptors (listeners and connections), near the usual 20,000 limit.
  const fleet = await Fleet.start();
  const announcing = await Fleet.start();
  let board: Program | null = null;
  let sampler: RssSampler | null = null;
  try {
    const served = await fleet.serve({
      machines: n,
      blackHoleShare: options.blackHoleShare,
      refusingShare: options.refusingShare,
      slowShare: options.slowShare,
      slowMs: options.slowMs,
      seed: 7,
    });
    const boardToken = token();
    const registrationToken = token();
    const dir = writeBoardConfig(scenarioDir(ctx, 'soak'), {
      board_token: boardToken,
      registration_token: registrationToken,
      max_announced: announcers + 1000,
      poll_timeout: options.pollTimeoutS,
      machines: configuredMachines(served.machines),
    });
    board = await launchBoard(ctx, dir, 'soak');
    sampler = new RssSampler(board.pid, 5000);
    ctx.log(
      `soak: ${seconds} s with ${count(n)} configured machines and ${count(announcers)} announcing (${count(rate)} reports/s)`,
    );
    const reports = announcing.announce({
      board: board.url,
      token: registrationToken,
      machines: announcers,
      rate,
      durationMs: seconds * 1000,
      maxInFlight: 2000,
    });
    const target = served.machines.find((m) => m.kind === 'ok');
    const deadline = Date.now() + seconds * 1000;
    let reads = 0;
    const clientErrors: string[] = [];
    while (Date.now() < deadline) {
      try {
        const view = await request(`${board.url}/api/board`, {
          headers: { authorization: `Bearer ${boardToken}` },
        });
        await view.body.dump({ limit: Number.POSITIVE_INFINITY });
        if (target !== undefined) {
          const relay = await request(`${board.url}/api/do/${target.name}/backup/start`, {
            method: 'POST',
            headers: { authorization: `Bearer ${boardToken}` },
          });
          await relay.body.dump();
        }
      } catch (error) {
        // One failed read is noted, not fatal: the soak is about memory over time.
        clientErrors.push(error instanceof Error ? error.message : String(error));
        ctx.log(`soak: a read or relay failed: ${clientErrors.at(-1)}`);
      }
      reads += 1;
      await sleep(5000);
      if (reads % 12 === 0) {
        const at = Math.round((seconds * 1000 - (deadline - Date.now())) / 1000);
        ctx.log(`soak: ${at} s, RSS ${sampler.sample().toFixed(0)} MB`);
      }
    }
    if (clientErrors.length > reads / 10) {
      ctx.problems.push(`soak: ${clientErrors.length} of ${reads} reads or relays failed`);
    }
    const answer = await reports;
    ctx.log(
      `soak: ${count(answer.ok)} of ${count(answer.offered)} reports answered {"ok":true}, p99 ${answer.latencyMs.p99.toFixed(0)} ms`,
    );
    const refused = Object.entries(answer.statuses).filter(([status]) => status !== '200');
    if (refused.length > 0) {
      ctx.problems.push(`soak reports: answers other than 200: ${JSON.stringify(answer.statuses)}`);
    }
    if (answer.failed > 0 || answer.skipped > 0) {
      ctx.log(
        `soak reports: ${answer.failed} failed (${JSON.stringify(answer.errors)}), ${answer.skipped} skipped`,
      );
    }
    sampler.sample();
    const warmEnd = Math.min(120_000, (seconds * 1000) / 4);
    const tail = Math.min(60_000, (seconds * 1000) / 4);
    const early = sampler.samples
      .filter((s) => s.atMs >= warmEnd && s.atMs < warmEnd + tail)
      .map((s) => s.mb);
    const late = sampler.samples.filter((s) => s.atMs >= seconds * 1000 - tail).map((s) => s.mb);
    const start = median(early);
    const end = median(late);
    ctx.rows.push({
      what: `soak ${Math.round(seconds / 60)} min: board RSS at the end vs after warm-up (${count(n)} configured, ${count(rate)} reports/s)`,
      board: end,
      unit: 'MB',
      baselineLabel: 'after warm-up',
      baseline: start,
      ratio: end / start,
      goal: 'no leak (ratio ≤ 1.10)',
      met: end / start <= 1.1,
    });
  } finally {
    sampler?.stop();
    await board?.stop(options.cpuProfDir === null ? 10_000 : 60_000);
    await fleet.stop();
    await announcing.stop();
  }
}

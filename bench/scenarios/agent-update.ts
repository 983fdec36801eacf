import { createHash, createHmac, createPublicKey, verify } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { token, writeBoardConfig } from '../board-kit.js';
import { type Program, ROOT } from '../processes.js';
import { nowMs, sleep } from '../stats.js';
import { type BenchContext, launchBoard, scenarioDir } from './context.js';

const FILE = 'panoptes-agent.mjs';
/** How often each simulated agent reports, s (as the scenario asks). */
const INTERVAL_S = 1;
/** The board's batch (UPDATE_BATCH in src/board/domain/agent-updates.ts). */
const BATCH = 10;
const OLD_SHA = '0'.repeat(64);

/** One simulated announcing agent that takes updates from its board. */
// The bench runs from dist/bench and reaches the board only over HTTP, as agents do: the wire's
// few rules are written out here (src/shared/wire/key-proof.ts, src/shared/sums-signature.ts).
const timedKeyProof = (key: string, name: string, location: string, at: string) =>
  createHmac('sha256', key).update(`panoptes-report-at\n${name}\n${location}\n${at}`).digest('hex');
const sumsSigned = (sums: string, signature: string | null, updateKey: string) =>
  signature !== null &&
  verify(
    null,
    Buffer.from(`panoptes agent SHA256SUMS v1\n${sums}`),
    createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: updateKey }, format: 'jwk' }),
    Buffer.from(signature, 'base64'),
  );
const SUMS_SIGNATURE_HEADER = 'x-panoptes-signature';

interface SimAgent {
  name: string;
  /** The key the board holds for it (announced_keys): its reports prove it. */
  key: string;
  sha: string;
  /** When it first reported the board's checksum (ms, nowMs), or null. */
  updatedAt: number | null;
  /** An update was handed to it: downloaded and checked before its next report. */
  pending: Promise<void> | null;
  failures: string[];
}

/**
 * Updates from the board: a real board serving the built one-file agent; simulated announcing
 * agents (1-s reports) that take updates and run an old file; POST /api/machines/update. Each
 * agent handed `update` downloads SHA256SUMS and the file from the board for real, checks the
 * sum and reports the new one. Row: the time until every agent reported the board's checksum
 * and the journal holds one `updated` per agent, beside the same agents just downloading the
 * file, 10 at a time, once each.
 */
export async function agentUpdateScenario(ctx: BenchContext): Promise<void> {
  const n = ctx.options.mode === 'quick' ? 30 : 100;
  const dir = scenarioDir(ctx, 'agent-update');
  const files = join(dir, 'agent-files');
  mkdirSync(files, { recursive: true });
  const built = join(ROOT, 'dist', 'agent-file', FILE);
  // The build's agent when there is one (npm run build), else a stand-in of its size.
  if (existsSync(built)) copyFileSync(built, join(files, FILE));
  else writeFileSync(join(files, FILE), Buffer.alloc(1_900_000, 'x'));
  const boardToken = token();
  const registration = token();
  const agents: SimAgent[] = Array.from({ length: n }, (_, i) => ({
    name: `upd-${String(i).padStart(3, '0')}`,
    key: token(),
    sha: OLD_SHA,
    updatedAt: null,
    pending: null,
    failures: [],
  }));
  // Keyed names: "update all" takes only machines whose reports prove their key.
  writeBoardConfig(dir, {
    board_token: boardToken,
    registration_token: registration,
    agent_files: files,
    announced_keys: Object.fromEntries(agents.map((a) => [a.name, a.key])),
  });
  const dispatcher = new Agent({ connections: 32 });
  let board: Program | null = null;
  let running = true;
  let loops: Promise<void>[] = [];
  try {
    board = await launchBoard(ctx, dir, 'agent-update');
    const url = board.url;
    const get = async (path: string, auth: string) => {
      const r = await request(`${url}${path}`, {
        dispatcher,
        headers: { authorization: `Bearer ${auth}` },
      });
      const body = Buffer.from(await r.body.arrayBuffer());
      if (r.statusCode !== 200) throw new Error(`GET ${path}: HTTP ${r.statusCode}`);
      return body;
    };
    // What the enroll pins: the board's update key.
    const updateKey = (await get('/agent/update-key', registration)).toString('utf8').trim();
    /**
     * What an agent does with an update: SHA256SUMS, its signature checked against the pinned
     * key, then the file, checked against the sums, then "runs" it.
     */
    const download = async (a: SimAgent) => {
      const signed = await request(`${url}/agent/SHA256SUMS`, { dispatcher });
      const sums = Buffer.from(await signed.body.arrayBuffer()).toString('utf8');
      const signature = signed.headers[SUMS_SIGNATURE_HEADER];
      if (!sumsSigned(sums, typeof signature === 'string' ? signature : null, updateKey))
        throw new Error(`${a.name}: SHA256SUMS is not signed by the board's update key`);
      const want = sums
        .split('\n')
        .find((line) => line.endsWith(`  ${FILE}`))
        ?.slice(0, 64);
      const bytes = await get(`/agent/${FILE}`, registration);
      const got = createHash('sha256').update(bytes).digest('hex');
      if (got !== want)
        throw new Error(`${a.name}: the file's sum ${got} is not SHA256SUMS' ${want}`);
      return got;
    };
    const report = async (a: SimAgent) => {
      const location = `http://127.0.0.1:9/${a.name}`;
      const at = new Date().toISOString();
      const r = await request(`${url}/api/report`, {
        dispatcher,
        method: 'POST',
        headers: { authorization: `Bearer ${registration}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: a.name,
          location,
          key_proof_at: at,
          key_proof: timedKeyProof(a.key, a.name, location, at),
          interval_s: INTERVAL_S,
          version: '0.1.0',
          hostname: a.name,
          updates: 'on',
          agent_file: FILE,
          agent_sha256: a.sha,
        }),
      });
      const answer = (await r.body.json()) as { update?: { id: string } };
      if (r.statusCode !== 200) throw new Error(`${a.name}: report HTTP ${r.statusCode}`);
      if (a.sha !== OLD_SHA && a.updatedAt === null) a.updatedAt = nowMs();
      if (answer.update !== undefined && a.pending === null) {
        a.pending = download(a).then(
          (sha) => {
            a.sha = sha;
          },
          (error: unknown) => {
            a.failures.push(error instanceof Error ? error.message : String(error));
          },
        );
      }
    };
    // Each agent reports every second, spread over the second, until the scenario ends.
    loops = agents.map(async (a, i) => {
      await sleep((i * INTERVAL_S * 1000) / n);
      while (running) {
        const started = nowMs();
        await (a.pending ?? Promise.resolve());
        await report(a).catch((error: unknown) => a.failures.push(String(error)));
        await sleep(Math.max(0, INTERVAL_S * 1000 - (nowMs() - started)));
      }
    });
    // Every agent listed with an update available before the clock starts.
    const deadline = nowMs() + 30_000;
    for (;;) {
      const view = JSON.parse((await get('/api/board', boardToken)).toString('utf8')) as {
        machines: { agent?: { update_available?: boolean } }[];
      };
      if (view.machines.filter((m) => m.agent?.update_available === true).length === n) break;
      if (nowMs() > deadline) throw new Error('the agents were not all listed as behind');
      await sleep(200);
    }

    // The baseline: the same file downloaded n times, 10 at a time.
    const baseStart = nowMs();
    for (let i = 0; i < n; i += BATCH) {
      await Promise.all(agents.slice(i, i + BATCH).map((a) => download(a)));
    }
    const baselineS = (nowMs() - baseStart) / 1000;

    ctx.log(`agent-update: updating ${n} announcing agents, ${BATCH} at a time`);
    const start = nowMs();
    const asked = await request(`${url}/api/machines/update`, {
      dispatcher,
      method: 'POST',
      headers: { authorization: `Bearer ${boardToken}`, 'content-type': 'application/json' },
      body: '{}',
    });
    const answer = (await asked.body.json()) as { machines?: string[] };
    if (asked.statusCode !== 202 || answer.machines?.length !== n)
      throw new Error(
        `POST /api/machines/update: HTTP ${asked.statusCode}, ${answer.machines?.length} machines`,
      );
    const limit = nowMs() + ((n / BATCH) * 120 + 30) * 1000;
    let journaled = 0;
    for (;;) {
      if (agents.every((a) => a.updatedAt !== null)) {
        const journal = JSON.parse(
          (await get('/api/journal?limit=5000', boardToken)).toString('utf8'),
        ) as { entries: { op: string; outcome: string }[] };
        journaled = journal.entries.filter(
          (e) => e.op === 'update' && e.outcome === 'updated',
        ).length;
        if (journaled >= n) break;
      }
      if (nowMs() > limit) break;
      await sleep(100);
    }
    const lastReport = Math.max(...agents.map((a) => a.updatedAt ?? Number.NaN));
    const tookS = (lastReport - start) / 1000;
    const failures = agents.flatMap((a) => a.failures);
    if (failures.length > 0)
      ctx.problems.push(`agent-update: ${failures.length} failures, e.g. ${failures[0]}`);
    if (journaled !== n) ctx.problems.push(`agent-update: ${journaled} of ${n} updated journaled`);
    const batches = Math.ceil(n / BATCH);
    // Per batch: the update waits for a report (≤ 1 interval), the new sum for the next one.
    const goalS = batches * 3 * INTERVAL_S;
    ctx.rows.push({
      what: `update ${n} announcing agents from the board (${BATCH} at a time, ${INTERVAL_S}-s reports): all report the new checksum, ${n} journaled`,
      board: tookS,
      unit: 's',
      baselineLabel: `${n} downloads of the file, ${BATCH} at a time`,
      baseline: baselineS,
      ratio: tookS / baselineS,
      goal: `≤ ${goalS} s (3 report intervals per batch)`,
      met: tookS <= goalS,
    });
  } finally {
    running = false;
    await Promise.allSettled(loops);
    await board?.stop();
    await dispatcher.close().catch(() => undefined);
  }
}

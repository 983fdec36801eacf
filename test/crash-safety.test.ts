import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PgServer, startPostgres } from '../harness/postgres.js';
import { type RunningProgram, startAgent, startBoard } from '../harness/processes.js';
import { seeded as rng } from '../harness/seeded.js';
import { checkFilesReadable, type Entry, integrity, SEED } from './helpers/crash-rounds.js';
import { eventually, Recorder, writeAgentConfig, writeBoardConfig } from './helpers/fleet.js';
import { expectNoSecrets } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'crash-board-token-7e9a1c3e5b7d';
const REGISTRATION = 'crash-registration-8f0b2d4f6c8e';
const AGENT_TOKEN = 'crash-agent-token-9a1c3e5a7d9f';
const SECRETS = [TOKEN, REGISTRATION, AGENT_TOKEN];

/** Kill rounds: PANOPTES_CRASH_ROUNDS under `npm run fuzz`, a few in npm test. */
const ROUNDS = Number(process.env.PANOPTES_CRASH_ROUNDS ?? 4);
const AGENT_ROUNDS = Number(process.env.PANOPTES_CRASH_ROUNDS ?? 3);

describe.each(['sqlite', 'postgres'] as const)(
  'crash safety of the board (%s): kill -9 under a stream of actions and reports',
  (engine) => {
    const dir = tempDir('panoptes-crash-board-');
    const http = new Recorder();
    let pg: PgServer | null = null;
    let configDir = '';
    let dataDir = '';
    beforeAll(async () => {
      pg = engine === 'postgres' ? await startPostgres() : null;
      configDir = writeBoardConfig(dir, 'b', {
        board_token: TOKEN,
        registration_token: REGISTRATION,
        // The board saves announced identities after each sweep (a report itself writes nothing).
        sweep_interval: 0.2,
        ...(pg === null ? {} : { store: await pg.createDatabase('crash') }),
      });
      dataDir = `${configDir}/data`;
    }, 60_000);
    afterAll(() => {
      pg?.destroy();
      dir.cleanup();
    });

    const labs = ['lab-0', 'lab-1', 'lab-2', 'lab-3'];
    /** Acknowledged queued actions, by id, with their machine. */
    const queued = new Map<string, string>();
    /** Ids whose result an acknowledged report carried: gone from the queue for good. */
    const resolved = new Set<string>();
    /** Ids whose result was in a report cut off by the kill: either way is right. */
    const unsure = new Set<string>();
    /**
     * Machines whose first report was acknowledged long enough before a kill for a sweep to have
     * saved them (a report writes nothing to disk: the board saves identities after each sweep).
     */
    const announced = new Set<string>(labs);
    /** Newcomers not yet known to be saved, with the time their first report was acknowledged. */
    const pending = new Map<string, number>();
    /** Enough for a sweep (0.2 s) to end and its identity write to land, with a margin. */
    const SAVED_AFTER_MS = 700;
    /** The round each action was queued in, and the round running now. */
    const roundOf = new Map<string, number>();
    let round = 0;
    let kills = 0;
    let acknowledged = 0;

    const report = (url: string, name: string, results: string[] = []) =>
      http.call(`${url}/api/report`, {
        method: 'POST',
        token: REGISTRATION,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          name,
          location: `http://${name}.example:8701`,
          cpus: 2,
          ...(results.length > 0
            ? {
                results: results.map((id) => ({
                  id,
                  status: 200,
                  body: { ok: true, exit_code: 0 },
                })),
              }
            : {}),
        }),
      });
    const act = async (url: string, machine: string, what: string): Promise<void> => {
      const r = await http.call(`${url}/api/do/${machine}/${what}/start`, {
        method: 'POST',
        token: TOKEN,
      });
      if (r.status === 200) {
        const { id } = r.json as { id: string };
        queued.set(id, machine);
        roundOf.set(id, round);
        acknowledged += 1;
      }
    };

    /** Everything acknowledged so far is there: journal, queue and announced machines. */
    async function verify(url: string): Promise<void> {
      const entries = (
        (await http.call(`${url}/api/journal?limit=10000`, { token: TOKEN })).json as {
          entries: Entry[];
        }
      ).entries;
      const details = entries.map((e) => e.detail).join('\n');
      // The journal keeps its last 10,000 entries: when full (long runs of `npm run fuzz`), only
      // what the last two rounds acknowledged is sure to be in it still.
      const full = entries.length >= 10_000;
      const recent = (id: string) => !full || (roundOf.get(id) ?? 0) >= round - 1;
      for (const id of queued.keys()) {
        if (recent(id)) expect(details, `journal has queued ${id}`).toContain(`queued as ${id}`);
      }
      for (const id of resolved) {
        if (recent(id))
          expect(details, `journal has the result of ${id}`).toContain(`result of ${id}`);
      }
      const view = (await http.call(`${url}/api/board`, { token: TOKEN })).json as {
        machines: { name: string }[];
      };
      const listed = new Set(view.machines.map((m) => m.name));
      for (const name of announced) expect(listed.has(name), `${name} still listed`).toBe(true);
      // The queue: every acknowledged action not resolved is handed over again; no resolved one is.
      for (const lab of labs) {
        const handed = new Set(
          ((await report(url, lab)).json as { actions: { id: string }[] }).actions.map((a) => a.id),
        );
        for (const [id, machine] of queued) {
          if (machine !== lab || unsure.has(id)) continue;
          if (resolved.has(id))
            expect(handed.has(id), `${id} was resolved; not handed again`).toBe(false);
          else expect(handed.has(id), `${id} still queued`).toBe(true);
        }
      }
    }

    it(`keeps every acknowledged entry and queued action over ${ROUNDS} kill -9 rounds (seed ${SEED})`, async () => {
      const random = rng(SEED);
      {
        const first = await startBoard(configDir);
        for (const lab of labs) expect((await report(first.url, lab)).status).toBe(200);
        await new Promise((r) => setTimeout(r, SAVED_AFTER_MS));
        await first.kill9();
      }
      for (round = 1; round <= ROUNDS + 1; round += 1) {
        const board = await startBoard(configDir);
        // The first writes after a restart are acknowledged ones: the next round checks them.
        await act(board.url, labs[round % labs.length] ?? 'lab-0', `probe${round}`);
        await verify(board.url);
        if (round > ROUNDS) {
          await board.stop();
          break;
        }

        // A steady stream: actions queued, reports carrying results of handed actions, and
        // machines announcing themselves for the first time; killed at a random moment.
        const handed = new Map<string, string[]>();
        let stop = false;
        const actions = async (w: number) => {
          for (let i = 0; !stop; i += 1) {
            await act(
              board.url,
              labs[(w + i) % labs.length] ?? 'lab-0',
              `r${round}w${w}j${i}`,
            ).catch(() => {
              stop = true;
            });
          }
        };
        const reports = async (w: number) => {
          for (let i = 0; !stop; i += 1) {
            const lab = labs[(w + i) % labs.length] ?? 'lab-0';
            const carrying = (handed.get(lab) ?? []).splice(0, 3);
            for (const id of carrying) unsure.add(id);
            try {
              const r = await report(board.url, lab, carrying);
              if (r.status !== 200) continue;
              for (const id of carrying) {
                unsure.delete(id);
                resolved.add(id);
              }
              acknowledged += 1;
              const ids = (r.json as { actions: { id: string }[] }).actions.map((a) => a.id);
              handed.set(lab, ids.filter((id) => !resolved.has(id) && !unsure.has(id)).slice(0, 6));
            } catch {
              stop = true;
            }
          }
        };
        const newcomers = async () => {
          for (let i = 0; !stop; i += 1) {
            const name = `new-r${round}-${i}`;
            try {
              if ((await report(board.url, name)).status === 200) {
                pending.set(name, Date.now());
                acknowledged += 1;
              }
            } catch {
              stop = true;
            }
            await new Promise((r) => setTimeout(r, 20));
          }
        };
        const killAfter = 100 + Math.floor(random() * 1400);
        const killer = (async () => {
          await new Promise((r) => setTimeout(r, killAfter));
          const killedAt = Date.now();
          await board.kill9();
          // Saved for sure: acknowledged long enough before the kill. Others may be gone (they
          // would announce themselves again at their next report); they are not checked.
          for (const [name, at] of pending) {
            if (killedAt - at >= SAVED_AFTER_MS) announced.add(name);
          }
          pending.clear();
          kills += 1;
          stop = true;
        })();
        await Promise.all([
          actions(0),
          actions(1),
          actions(2),
          reports(0),
          reports(1),
          newcomers(),
          killer,
        ]);

        // Nothing was left broken by the kill (PostgreSQL checks its own on the next connection).
        if (engine === 'sqlite') expect(integrity(dataDir)).toBe('ok');
      }
      expect(kills).toBe(ROUNDS);
      expect(queued.size).toBeGreaterThan(ROUNDS * 5);
      expect(resolved.size).toBeGreaterThan(0);
      console.log(
        `board crash (${engine}): ${kills} kill -9 rounds (seed ${SEED}), ${acknowledged} acknowledged requests, ` +
          `${queued.size} queued actions, ${resolved.size} resolved, ${announced.size} machines`,
      );
    }, 120_000);

    it('leaves no secret anywhere', () => {
      expectNoSecrets({
        secrets: [...SECRETS, ...(pg === null ? [] : [pg.password])],
        recorders: [http],
        dirs: [dir.path],
      });
    });
  },
);

describe('crash safety of the agent: kill -9 while it runs handed actions', () => {
  const dir = tempDir('panoptes-crash-agent-');
  const http = new Recorder();
  const runs = `${dir.path}/runs.log`;
  const JOBS = 12;
  // One service per handed id (round r, job j), so that a second run of an id shows as a
  // service started twice. Each notes that it started, works a little, notes that it ended.
  const services: Record<string, unknown> = {};
  for (let r = 1; r <= AGENT_ROUNDS; r += 1) {
    for (let j = 0; j < JOBS; j += 1) {
      services[`r${r}j${j}`] = {
        start: [
          'sh',
          '-c',
          `echo start r${r}j${j} >> ${runs}; sleep 0.15; echo end r${r}j${j} >> ${runs}`,
        ],
        board: ['start'],
      };
    }
  }
  let board: RunningProgram;
  afterAll(async () => {
    await board?.stop();
    dir.cleanup();
  });

  it(`runs each handed action id at most once over ${AGENT_ROUNDS} kill -9 rounds (seed ${SEED})`, async () => {
    const random = rng(SEED + 1);
    board = await startBoard(
      writeBoardConfig(dir, 'b', { board_token: TOKEN, registration_token: REGISTRATION }),
    );
    const agentConfig = writeAgentConfig(dir, 'lab', {
      name: 'lab',
      token: AGENT_TOKEN,
      data_dir: `${dir.path}/agent-data`,
      services,
      report: { board: board.url, token: REGISTRATION, interval: 0.2 },
    });
    let kills = 0;
    const ids = new Map<string, string>();
    for (let round = 1; round <= AGENT_ROUNDS + 1; round += 1) {
      const agent = await startAgent(agentConfig);
      await eventually(async () => {
        const view = (await http.call(`${board.url}/api/board`, { token: TOKEN })).json as {
          machines: { name: string; state: string }[];
        };
        return view.machines.some((m) => m.name === 'lab' && m.state === 'up') ? true : undefined;
      }, 'the agent reporting');
      if (round > AGENT_ROUNDS) {
        // The last life: everything still queued is handed over and answered; then stop.
        await eventually(
          async () => {
            const view = (await http.call(`${board.url}/api/board`, { token: TOKEN })).json as {
              machines: { name: string; queued: number }[];
            };
            return view.machines.find((m) => m.name === 'lab')?.queued === 0 ? true : undefined;
          },
          'the queue drained',
          30_000,
        );
        await agent.stop();
        break;
      }
      // Queue this round's jobs, then kill the agent while it works through them.
      for (let j = 0; j < JOBS; j += 1) {
        const r = await http.call(`${board.url}/api/do/lab/r${round}j${j}/start`, {
          method: 'POST',
          token: TOKEN,
        });
        expect(r.status).toBe(200);
        ids.set((r.json as { id: string }).id, `r${round}j${j}`);
      }
      await eventually(
        async () => (readFileSync(runs, 'utf8').includes('start') ? true : undefined),
        'a job running',
        15_000,
      ).catch(() => undefined);
      await new Promise((r) => setTimeout(r, Math.floor(random() * 600)));
      await agent.kill9();
      kills += 1;
      // The record of ids is never unreadable (a torn last line at most).
      checkFilesReadable(`${dir.path}/agent-data`);
    }
    expect(kills).toBe(AGENT_ROUNDS);
    // Every id ran at most once: each id has a service of its own, started at most once.
    const lines = existsSync(runs) ? readFileSync(runs, 'utf8').trim().split('\n') : [];
    const starts = new Map<string, number>();
    for (const line of lines) {
      const [what, job] = line.split(' ');
      if (what === 'start' && job !== undefined) starts.set(job, (starts.get(job) ?? 0) + 1);
    }
    for (const [job, n] of starts) expect(n, `${job} started ${n} times`).toBe(1);
    expect(starts.size).toBeGreaterThan(0);
    // And the board has a result for every id: done, or failed (interrupted, not repeated).
    const entries = (
      (await http.call(`${board.url}/api/journal?limit=10000`, { token: TOKEN })).json as {
        entries: Entry[];
      }
    ).entries;
    const results = entries.filter((e) => e.detail.startsWith('result of '));
    const resultIds = results.map((e) => e.detail.split(' ')[2]?.replace(':', ''));
    for (const id of ids.keys())
      expect(resultIds.filter((r) => r === id).length, `one result for ${id}`).toBe(1);
    const interrupted = results.filter((e) => e.detail.includes('not repeated')).length;
    console.log(
      `agent crash: ${kills} kill -9 rounds (seed ${SEED}), ${ids.size} handed ids, ${starts.size} jobs started, ` +
        `${interrupted} reported interrupted`,
    );
  }, 120_000);

  it('leaves no secret anywhere', () => {
    expectNoSecrets({ secrets: SECRETS, recorders: [http], dirs: [dir.path] });
  });
});

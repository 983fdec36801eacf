#!/usr/bin/env node
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { type CliOptions, parseCli } from '../shared/cli.js';
import { startReloadTrigger } from '../shared/config/reload-trigger.js';
import { createLogger } from '../shared/logger.js';
import { runMain } from '../shared/run-main.js';
import { sha256File } from '../shared/sha256-file.js';
import { VERSION } from '../shared/version.js';
import { timedKeyProof } from '../shared/wire/key-proof.js';
import { buildAgent } from './app.js';
import { type AgentSettings, loadAgentConfig } from './config.js';
import { systemClock } from './domain/clock.js';
import { Reporter } from './domain/reporter.js';
import { enroll } from './enroll/enroll.js';
import { BellFile } from './io/bell-file.js';
import { dockerEngine, engineSockets } from './io/container-engine.js';
import { childEnv, trackedSpawner } from './io/node-spawner.js';
import { privateDir } from './io/private-files.js';
import { RanFile } from './io/ran-file.js';
import { boardConnection } from './io/report-poster.js';
import { RevokedKeys } from './io/revoked-keys.js';
import { machineSources } from './io/sources.js';
import { nodeSystemProbe } from './io/system-probe.js';
import { reloadAgent } from './reload.js';
import { ENROLLED_CONFIG_NAME } from './ring/bell-target.js';
import { programIo } from './ring/program.js';
import {
  closeListener,
  listenAgain,
  listeningPort,
  RESTART_EXIT_CODE,
  spawnAgentFile,
  underSystemd,
} from './update/agent-updates.js';
import { selfFile } from './update/self-file.js';
import { UpdateFiles } from './update/state.js';
import { stopTrial } from './update/trial.js';
import { NO_UPDATE_KEY, type Trial, Updater } from './update/updater.js';

const argv = process.argv.slice(2);
if (argv[0] === '--version') {
  process.stdout.write(`panoptes-agent ${VERSION}\n`);
} else if (argv[0] === 'enroll') {
  runMain('panoptes-agent', async () => {
    const cli = await enroll(argv.slice(1));
    if (cli !== null) await runAgent(cli);
  });
} else {
  // async: a bad argument becomes runMain's one-line message, not an uncaught throw.
  runMain('panoptes-agent', async () => runAgent(parseCli(argv)));
}

/**
 * Without --config: panoptes-agent.yaml beside the agent file, where enroll writes it (the rule
 * `hooks` and `bell` follow too).
 */
function besideConfig(): string {
  const beside = join(programIo().programDir, ENROLLED_CONFIG_NAME);
  if (existsSync(beside)) return beside;
  throw new Error(`--config FILE is required (there is no ${beside}, which enroll writes)`);
}

/** The agent with its config file: serves, reports if configured, reloads on SIGHUP. */
async function runAgent(cli: CliOptions): Promise<void> {
  const file = cli.config ?? besideConfig();
  const settings = loadAgentConfig(file, cli);
  let current: AgentSettings = settings;
  const logger = createLogger('agent');
  const revokedKeys = await RevokedKeys.open(settings.dataDir);
  // A board key the board revoked stays refused here, whatever the config says.
  const honoured = (s: AgentSettings): AgentSettings =>
    revokedKeys.has(s.boardKey) ? { ...s, boardKey: null } : s;
  if (revokedKeys.has(settings.boardKey)) {
    logger.warn(
      'the board revoked the board key in the config: it is not honoured (add the machine again from the board and enroll with the new key)',
    );
  }
  const self = selfFile();
  // Hooks filled below once the listener and the reporter exist.
  const during = {
    pause: async (): Promise<void> => undefined,
    resume: async (): Promise<void> => undefined,
    finish: (_trial: Trial): void => undefined,
    port: settings.port,
  };
  if (settings.updateFrom !== null) {
    await privateDir(settings.dataDir).catch(() => undefined);
    if (settings.updateFrom.key === null) logger.warn(NO_UPDATE_KEY);
  }
  const updater = await Updater.open({
    self,
    ownSha: self === null ? null : await sha256File(self.path),
    source: settings.updateFrom,
    files: new UpdateFiles(settings.dataDir),
    log: logger,
    now: () => new Date(),
    pause: () => during.pause(),
    resume: () => during.resume(),
    spawn: (path) =>
      spawnAgentFile(
        { name: self?.name ?? 'panoptes-agent.mjs', path },
        resolve(file),
        settings.host,
        // Taken while listening: the listener is closed when the new file starts.
        during.port,
      ),
    finish: (trial) => during.finish(trial),
    hash: sha256File,
  });
  const confirm = () =>
    void updater
      .confirm()
      .catch((error: unknown) => logger.error({ err: error }, 'update: cannot confirm'));
  const env = childEnv(process.env, settings.secretEnv);
  const spawner = trackedSpawner(env);
  const containerEngine = dockerEngine(engineSockets(settings.containerSocket, env));
  const bellFile = new BellFile(settings.dataDir, logger);
  const agent = await buildAgent({
    settings: honoured(settings),
    bellStore: { store: bellFile, kept: await bellFile.load() },
    logger,
    clock: systemClock,
    spawner: spawner.spawn,
    probe: nodeSystemProbe(['/', settings.dataDir]),
    sources: machineSources(settings, env),
    containerEngine,
    updates: {
      request: (id) => updater.request(id),
      fields: () => updater.fields(),
      boardRead: confirm,
    },
  });
  // In the background, once per interval: the overview only reads what the last read found.
  for (const source of agent.sources) source.start();
  // The first overview should already know the states; a hanging check only delays itself.
  void agent.services.refreshStatus();
  await agent.app.listen({
    host: settings.host,
    port: settings.port,
    listenTextResolver: (address) => `agent listening at ${address}`,
  });

  let stopReporting = async (): Promise<void> => undefined;
  let pauseReporting = async (): Promise<void> => undefined;
  let resumeReporting = (): void => undefined;
  // Replaced by a reload that changes report.board, .token or .ca; a report in flight finishes
  // on the connection it began on (closing a board connection waits for it).
  let reconnect = (_next: AgentSettings): void => undefined;
  if (settings.report !== null) {
    const report = settings.report;
    const location =
      settings.location ?? listeningLocation(agent.app.server.address(), settings.tls !== null);
    await privateDir(settings.dataDir).catch((error: unknown) =>
      logger.warn(
        { err: error, data_dir: settings.dataDir },
        'cannot make data_dir private (0700)',
      ),
    );
    const store = await RanFile.open(settings.dataDir);
    const timeoutMs = Math.min(10_000, Math.max(2_000, report.intervalMs));
    let connection = boardConnection(
      report.board,
      report.token,
      timeoutMs,
      report.ca,
      report.intervalMs,
    );
    reconnect = (next) => {
      const r = next.report;
      const was = current.report;
      if (r === null || was === null) return;
      if (r.board === was.board && r.token === was.token && r.ca === was.ca) return;
      const old = connection;
      connection = boardConnection(r.board, r.token, timeoutMs, r.ca, r.intervalMs);
      old
        .close()
        .catch((error: unknown) => logger.warn({ err: error }, 'closing the old board connection'));
    };
    // The key the report in flight was proved with (one report at a time).
    let provedWith: string | null = null;
    const revoke = (key: string): void => {
      const { added, written } = revokedKeys.add(key);
      if (!added) return;
      if (current.boardKey === key) agent.dropBoardKey();
      logger.warn(
        { board: current.report?.board },
        'the board revoked this machine: its board key is no longer honoured here (the agent token still works)',
      );
      written.catch((error: unknown) =>
        logger.error({ err: error }, 'cannot record the revoked board key in data_dir'),
      );
    };
    const reporter = new Reporter({
      intervalMs: settings.report.intervalMs,
      location,
      // The key of the config now (a reload may change it), unless revoked.
      keyProof: (at) => {
        provedWith = honoured(current).boardKey;
        return provedWith === null ? null : timedKeyProof(provedWith, settings.name, location, at);
      },
      revoked: () => {
        if (provedWith !== null) revoke(provedWith);
      },
      overview: () => agent.overview.overview(),
      act: agent.actForBoard,
      store,
      accepted: confirm,
      update: (asked) => {
        const refused = updater.request(asked.id);
        if (refused !== null) logger.debug({ id: asked.id, detail: refused }, 'update not taken');
      },
      checks: (handed) => agent.checks.take(handed),
      post: (json) => connection.post(json),
      clock: systemClock,
      random: Math.random,
      log: logger,
    });
    agent.checks.onUrgent(() => reporter.nudge());
    reporter.start();
    logger.info({ board: settings.report.board, location }, 'announcing to the board');
    pauseReporting = () => reporter.stop();
    resumeReporting = () => reporter.start();
    stopReporting = async () => {
      await reporter.stop();
      await reporter.settled();
      await connection.close();
      await store.close();
    };
  }

  const trigger = startReloadTrigger({
    file: settings.source,
    log: logger,
    reload: async (why) => {
      await reloadAgent(
        {
          load: () => loadAgentConfig(file, cli),
          current: () => current,
          apply: async (next) => {
            reconnect(next);
            current = next;
            const { removed } = agent.reconfigure(honoured(next));
            // A process service no longer published is not left running unsupervised.
            await Promise.all(removed.filter((p) => p.running).map((p) => p.stop()));
          },
          log: logger,
        },
        why,
      );
    },
  });

  let listening = true;
  const port = listeningPort(agent.app.server, settings.port);
  during.port = port;
  during.pause = async () => {
    await pauseReporting();
    listening = false;
    await closeListener(agent.app.server);
  };
  during.resume = async () => {
    await listenAgain(agent.app.server, settings.host, port);
    listening = true;
    logger.info({ port }, 'agent listening again');
    resumeReporting();
  };

  let stopping = false;
  const stopAll = async (exitCode: number) => {
    try {
      trigger.close();
      await trigger.idle();
      await stopReporting();
      agent.checks.stop();
      await Promise.all(agent.sources.map((source) => source.stop()));
      await containerEngine.close();
      if (listening) await agent.app.close();
      await agent.services.stopAll();
      // Status checks still running would outlive the agent in their own process groups.
      spawner.killAll();
    } catch (error) {
      logger.error({ err: error }, 'error while stopping');
    }
    process.exit(exitCode);
  };
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    void stopAll(0);
  };
  during.finish = (trial) => {
    if (stopping) return;
    stopping = true;
    void (async () => {
      if (underSystemd()) {
        // Under KillMode=mixed systemd would SIGKILL the trial process when this one exits:
        // stop it cleanly instead, and exit non-zero so Restart=on-failure starts the new file.
        logger.info(
          { new_pid: trial.pid, exit_code: RESTART_EXIT_CODE },
          'update: under systemd: stopping the trial process; systemd restarts the service from the new file',
        );
        await stopTrial(trial);
        await stopAll(RESTART_EXIT_CODE);
      } else {
        logger.info({ new_pid: trial.pid }, 'update: the new agent runs on; this process exits');
        await stopAll(0);
      }
    })();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

/** http(s)://host:port as the server listens; the machine's name when it listens on every address. */
function listeningLocation(address: string | AddressInfo | null, tls: boolean): string {
  const scheme = tls ? 'https' : 'http';
  if (address === null || typeof address === 'string') return `${scheme}://${hostname()}`;
  const wildcard = address.address === '0.0.0.0' || address.address === '::';
  const host = wildcard ? hostname() : address.address;
  const shown = host.includes(':') ? `[${host}]` : host;
  return `${scheme}://${shown}:${address.port}`;
}

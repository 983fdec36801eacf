#!/usr/bin/env node
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { parseCli } from '../shared/cli.js';
import { createLogger } from '../shared/logger.js';
import { runMain } from '../shared/run-main.js';
import { timedKeyProof } from '../shared/wire/key-proof.js';
import { buildAgent } from './app.js';
import { loadAgentConfig } from './config.js';
import { systemClock } from './domain/clock.js';
import { Reporter } from './domain/reporter.js';
import { childEnv, trackedSpawner } from './io/node-spawner.js';
import { RanFile } from './io/ran-file.js';
import { boardConnection } from './io/report-poster.js';
import { nodeSystemProbe } from './io/system-probe.js';

runMain('panoptes-agent', async () => {
  const cli = parseCli(process.argv.slice(2));
  if (cli.config === undefined) throw new Error('--config FILE is required');
  const settings = loadAgentConfig(cli.config, cli);
  const logger = createLogger('agent');
  const spawner = trackedSpawner(childEnv(process.env, settings.secretEnv));
  const agent = await buildAgent({
    settings,
    logger,
    clock: systemClock,
    spawner: spawner.spawn,
    probe: nodeSystemProbe(['/', settings.dataDir]),
  });
  // The first overview should already know the states; a hanging check only delays itself.
  void agent.services.refreshStatus();
  await agent.app.listen({
    host: settings.host,
    port: settings.port,
    listenTextResolver: (address) => `agent listening at ${address}`,
  });

  let stopReporting = async (): Promise<void> => undefined;
  if (settings.report !== null) {
    const location = settings.location ?? listeningLocation(agent.app.server.address());
    const store = await RanFile.open(settings.dataDir);
    const connection = boardConnection(
      settings.report.board,
      settings.report.token,
      Math.min(10_000, Math.max(2_000, settings.report.intervalMs)),
    );
    const reporter = new Reporter({
      intervalMs: settings.report.intervalMs,
      location,
      keyProof: (() => {
        const key = settings.boardKey;
        if (key === null) return null;
        return (at: string) => timedKeyProof(key, settings.name, location, at);
      })(),
      overview: () => agent.overview.overview(),
      act: agent.actForBoard,
      store,
      post: connection.post,
      clock: systemClock,
      random: Math.random,
      log: logger,
    });
    reporter.start();
    logger.info({ board: settings.report.board, location }, 'announcing to the board');
    stopReporting = async () => {
      await reporter.stop();
      await reporter.settled();
      await connection.close();
      await store.close();
    };
  }

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    void (async () => {
      try {
        await stopReporting();
        await agent.app.close();
        await agent.services.stopAll();
        // Status checks still running would outlive the agent in their own process groups.
        spawner.killAll();
      } catch (error) {
        logger.error({ err: error }, 'error while stopping');
      }
      process.exit(0);
    })();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
});

/** http://host:port as the server listens; the machine's name when it listens on every address. */
function listeningLocation(address: string | AddressInfo | null): string {
  if (address === null || typeof address === 'string') return `http://${hostname()}`;
  const wildcard = address.address === '0.0.0.0' || address.address === '::';
  const host = wildcard ? hostname() : address.address;
  const shown = host.includes(':') ? `[${host}]` : host;
  return `http://${shown}:${address.port}`;
}

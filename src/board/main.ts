#!/usr/bin/env node
import { parseCli } from '../shared/cli.js';
import { createLogger } from '../shared/logger.js';
import { runMain } from '../shared/run-main.js';
import { buildBoard } from './app.js';
import { loadBoardConfig } from './config.js';
import { startScheduler } from './scheduler.js';

runMain('panoptes-board', async () => {
  const cli = parseCli(process.argv.slice(2));
  if (cli.config === undefined) {
    throw new Error('--config DIR is required (`npm start` without it runs the embedded default)');
  }
  const settings = loadBoardConfig(cli.config, cli);
  const logger = createLogger('board');
  const boardApp = await buildBoard({ settings, logger });
  await boardApp.app.listen({
    host: settings.host,
    port: settings.port,
    listenTextResolver: (address) => `board listening at ${address}`,
  });
  const scheduler = startScheduler(boardApp, settings, logger);
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'board shutting down');
    scheduler
      .stop()
      .then(() => boardApp.close())
      .then(() => {
        logger.info('board stopped');
        process.exit(0);
      })
      .catch((error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
});

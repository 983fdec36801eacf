#!/usr/bin/env node
import { Type } from 'typebox';
import { parseCli } from '../shared/cli.js';
import { createHttpApp } from '../shared/http/http-app.js';
import { NO_SECURITY } from '../shared/http/openapi.js';
import { createLogger } from '../shared/logger.js';
import { runMain } from '../shared/run-main.js';
import { VERSION } from '../shared/version.js';
import { loadBoardConfig } from './config.js';

runMain('panoptes-board', async () => {
  const cli = parseCli(process.argv.slice(2));
  if (cli.config === undefined)
    throw new Error('--config DIR: the embedded default is not built yet');
  const settings = loadBoardConfig(cli.config, cli);
  const logger = createLogger('board');
  const app = await createHttpApp({
    logger,
    openapi: {
      title: 'Panoptes',
      version: VERSION,
      description: 'The board',
      bearerDescription: 'board token',
      queryDescription: 'board token',
    },
  });
  app.get(
    '/api/health',
    {
      schema: { security: NO_SECURITY, response: { 200: Type.Object({ status: Type.String() }) } },
    },
    async () => ({ status: 'ok', version: VERSION }),
  );
  await app.listen({
    host: settings.host,
    port: settings.port,
    listenTextResolver: (address) => `board listening at ${address}`,
  });
});

#!/usr/bin/env node
import { Type } from 'typebox';
import { parseCli } from '../shared/cli.js';
import { createHttpApp } from '../shared/http/http-app.js';
import { NO_SECURITY } from '../shared/http/openapi.js';
import { createLogger } from '../shared/logger.js';
import { runMain } from '../shared/run-main.js';
import { VERSION } from '../shared/version.js';
import { loadAgentConfig } from './config.js';

runMain('panoptes-agent', async () => {
  const cli = parseCli(process.argv.slice(2));
  if (cli.config === undefined) throw new Error('--config FILE is required');
  const settings = loadAgentConfig(cli.config, cli);
  const logger = createLogger('agent');
  const app = await createHttpApp({
    logger,
    openapi: {
      title: 'Panoptes',
      version: VERSION,
      description: 'The agent',
      bearerDescription: 'agent token',
      queryDescription: 'agent token',
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
    listenTextResolver: (address) => `agent listening at ${address}`,
  });
});

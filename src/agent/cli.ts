#!/usr/bin/env node
/**
 * The one-file agent's entry (scripts/bundle-agent.mjs): `--version` answers before the rest of
 * the agent (Fastify, undici…) is loaded; anything else runs main.ts.
 */
import { VERSION } from '../shared/version.js';

const USAGE = `panoptes-agent ${VERSION}: the Panoptes agent, one file

  node panoptes-agent.mjs --config FILE [--host HOST] [--port PORT]   run with a config file
  PANOPTES_BOARD_KEY=KEY PANOPTES_REGISTRATION_TOKEN=TOKEN node panoptes-agent.mjs enroll --board URL --name NAME …
                                  write a config for a board's key and run (see enroll --help)
  node panoptes-agent.mjs --version
`;

const first = process.argv[2];
if (first === '--version') process.stdout.write(`panoptes-agent ${VERSION}\n`);
else if (first === '--help' || first === '-h') process.stdout.write(USAGE);
else await import('./main.js');

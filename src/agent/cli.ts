#!/usr/bin/env node
/**
 * The one-file agent's entry (scripts/bundle-agent.mjs): `--version` answers before the rest of
 * the agent (Fastify, undici…) is loaded; anything else runs main.ts.
 */
import { VERSION } from '../shared/version.js';

if (process.argv[2] === '--version') process.stdout.write(`panoptes-agent ${VERSION}\n`);
else await import('./main.js');

#!/usr/bin/env node
/**
 * The agent's entry (the one-file agent, scripts/bundle-agent.mjs, and the `panoptes-agent` bin):
 * `--version` answers before the rest of the agent (Fastify, undici…) is loaded; `bell` and
 * `hooks` load only what they need; anything else runs main.ts.
 */
import { VERSION } from '../shared/version.js';
import { isSea } from './ring/program.js';

// How the person ran it: the agent binary by its path, else node and the one file.
const SELF = isSea() ? (process.argv[1] ?? 'panoptes-agent') : 'node panoptes-agent.mjs';

const USAGE = `panoptes-agent ${VERSION}: the Panoptes agent, one file

  ${SELF} [--config FILE] [--host HOST] [--port PORT]
                                  run (default FILE: panoptes-agent.yaml beside this file)
  PANOPTES_BOARD_KEY=KEY PANOPTES_REGISTRATION_TOKEN=TOKEN ${SELF} enroll --board URL --name NAME …
                                  write a config for a board's key and run (see enroll --help)
  ${SELF} hooks install claude|codex
                                  make Claude Code or Codex ring this agent (see hooks --help)
  ${SELF} bell [--session NAME] [--why WHY] [--text TEXT] [--hook | --codex]
                                  ring the bell of a session (see bell --help)
  ${SELF} --version
`;

const COMMANDS = ['enroll', 'bell', 'hooks'];

const [first, ...rest] = process.argv.slice(2);
if (first === '--version') process.stdout.write(`panoptes-agent ${VERSION}\n`);
else if (first === '--help' || first === '-h') process.stdout.write(USAGE);
else if (first === 'bell') {
  const { runBell } = await import('./ring/bell-command.js');
  process.exitCode = await runBell(rest, {
    usage: `${SELF} bell`,
    prefix: 'panoptes-agent bell',
  });
} else if (first === 'hooks') {
  const { runHooks } = await import('./ring/hooks-command.js');
  process.exitCode = await runHooks(rest);
} else if (first !== undefined && !first.startsWith('-') && !COMMANDS.includes(first)) {
  process.stderr.write(
    `panoptes-agent: unknown command ${JSON.stringify(first.slice(0, 40))}: ${COMMANDS.join(', ')}, or --config FILE to run (--help)\n`,
  );
  process.exitCode = 2;
} else await import('./main.js');

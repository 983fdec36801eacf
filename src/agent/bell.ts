#!/usr/bin/env node
import { runBell } from './ring/bell-command.js';

/** panoptes-bell: the one-file agent's `bell`, as a program of its own (the package's bin). */
process.exitCode = await runBell(process.argv.slice(2), {
  usage: 'panoptes-bell',
  prefix: 'panoptes-bell',
});

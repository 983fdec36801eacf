#!/usr/bin/env node
import './heap-flags.js';
import { parseCli } from '../shared/cli.js';
import { createLogger } from '../shared/logger.js';
import { runMain } from '../shared/run-main.js';
import { printAddress } from './address-line.js';
import { isBackupCommand, runBackupCommand } from './backup/command.js';
import { isImportCommand, runImportCommand } from './checks/import-command.js';
import { loadBoardConfig } from './config/config.js';
import { exitOnSignal, runBoard } from './run.js';
import { isUsersCommand, runUsersCommand } from './users/users-command.js';

runMain('panoptes-board', async () => {
  if (isBackupCommand(process.argv.slice(2))) {
    runBackupCommand('panoptes-board', process.argv.slice(2));
    return;
  }
  if (isImportCommand(process.argv.slice(2))) {
    runImportCommand('panoptes-board', process.argv.slice(2));
    return;
  }
  if (isUsersCommand(process.argv.slice(2))) {
    await runUsersCommand('panoptes-board', process.argv.slice(2));
    return;
  }
  const cli = parseCli(process.argv.slice(2));
  if (cli.config === undefined) {
    throw new Error('--config DIR is required (`npm start` without it runs the embedded default)');
  }
  const settings = loadBoardConfig(cli.config, cli);
  const logger = createLogger('board');
  const board = await runBoard(settings, logger, {
    reload: () => loadBoardConfig(cli.config ?? '.', cli),
  });
  // Listening for SIGTERM before the address is out: whoever reads it may stop the board at once.
  exitOnSignal(logger, board.stop);
  printAddress(board.url, settings);
});

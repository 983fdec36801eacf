#!/usr/bin/env node
import '../board/heap-flags.js';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { buildAgent } from '../agent/app.js';
import { agentSettings } from '../agent/config.js';
import { systemClock as agentClock } from '../agent/domain/clock.js';
import { dockerEngine, engineSockets } from '../agent/io/container-engine.js';
import { childEnv, nodeSpawner } from '../agent/io/node-spawner.js';
import { machineSources } from '../agent/io/sources.js';
import { nodeSystemProbe } from '../agent/io/system-probe.js';
import { printAddress } from '../board/address-line.js';
import { isBackupCommand, runBackupCommand } from '../board/backup/command.js';
import { isImportCommand, runImportCommand } from '../board/checks/import-command.js';
import { boardSettings, loadBoardConfig } from '../board/config/config.js';
import { exitOnSignal, runBoard } from '../board/run.js';
import { isUsersCommand, runUsersCommand } from '../board/users/users-command.js';
import { parseCli } from '../shared/cli.js';
import { userDataDir } from '../shared/data-dir.js';
import { createLogger } from '../shared/logger.js';
import { runMain } from '../shared/run-main.js';
import { embeddedTokens } from './embedded-tokens.js';

/**
 * `npm start`: with `--config DIR`, the board of that config. Without it, the embedded default:
 * a board of this machine, with an agent for it in the same process on loopback. `backup FILE`
 * and `restore FILE` copy that board's state (or the state of --config DIR's) instead;
 * `import gatus FILE` prints a Gatus config's endpoints as checks.
 */
runMain('panoptes', async () => {
  if (isBackupCommand(process.argv.slice(2))) {
    runBackupCommand('panoptes', process.argv.slice(2));
    return;
  }
  if (isImportCommand(process.argv.slice(2))) {
    runImportCommand('panoptes', process.argv.slice(2));
    return;
  }
  if (isUsersCommand(process.argv.slice(2))) {
    await runUsersCommand('panoptes', process.argv.slice(2), () => {
      const root = userDataDir();
      const { board_token } = embeddedTokens(root);
      return boardSettings({ board_token, data_dir: join(root, 'board') }, '(embedded)', null);
    });
    return;
  }
  const cli = parseCli(process.argv.slice(2));
  const logger = createLogger('board');
  if (cli.config !== undefined) {
    const dir = cli.config;
    const settings = loadBoardConfig(dir, cli);
    const board = await runBoard(settings, logger, { reload: () => loadBoardConfig(dir, cli) });
    // Listening for SIGTERM before the address is out: whoever reads it may stop the board at once.
    exitOnSignal(logger, board.stop);
    printAddress(board.url, settings);
    return;
  }

  const dataDir = userDataDir();
  const tokens = embeddedTokens(dataDir);
  const agentConfigFile = join(dataDir, '(embedded agent)');
  const agentLog = createLogger('agent');
  const settings = agentSettings(
    {
      name: 'localhost',
      host: '127.0.0.1',
      port: 0,
      token: tokens.agent_token,
      board_key: tokens.board_key,
      data_dir: join(dataDir, 'agent'),
    },
    agentConfigFile,
  );
  const containerEngine = dockerEngine(engineSockets(null, childEnv(process.env)));
  const agent = await buildAgent({
    settings,
    logger: agentLog,
    clock: agentClock,
    spawner: nodeSpawner(childEnv(process.env)),
    probe: nodeSystemProbe(['/', dataDir]),
    sources: machineSources(settings, childEnv(process.env)),
    containerEngine,
  });
  for (const source of agent.sources) source.start();
  await agent.app.listen({
    host: '127.0.0.1',
    port: 0,
    listenTextResolver: (a) => `embedded agent ready at ${a}`,
  });
  const { port } = agent.app.server.address() as AddressInfo;
  const agentUrl = `http://127.0.0.1:${port}`;

  const board = await runBoard(
    boardSettings(
      {
        board_token: tokens.board_token,
        // Machines added from the page ("Add a machine") report with this token and the key
        // the board made for them; no other name may report (announced_keys_only).
        registration_token: tokens.registration_token,
        announced_keys_only: true,
        data_dir: join(dataDir, 'board'),
        machines: [{ name: 'localhost', url: agentUrl, key: tokens.board_key }],
      },
      '(embedded default)',
      null,
      cli,
    ),
    logger,
  );
  // Listening for SIGTERM before the address is out: whoever reads it may stop the board at once.
  exitOnSignal(logger, async () => {
    await board.stop();
    await Promise.all(agent.sources.map((source) => source.stop()));
    await containerEngine.close();
    await agent.app.close();
  });
  // The one place a token is printed: the address to open, once, on stdout (not in a log line),
  // whether stdout is a terminal or not: it is how `npm start` hands over the board and tokens it
  // made, and the tokens file beside the state says the same. A board with --config prints its
  // token only on a terminal (address-line.ts): that token is the operator's, kept elsewhere.
  process.stdout.write(
    `\nPanoptes is running. Open the board:\n  ${board.url}/?token=${tokens.board_token}\n(state and tokens in ${dataDir})\n\n`,
  );
});

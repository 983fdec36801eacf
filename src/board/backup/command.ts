import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { userDataDir } from '../../shared/data-dir.js';
import { loadBoardConfig } from '../config/config.js';
import { type BoardFiles, writeBackup } from './backup.js';
import { restoreBackup } from './restore.js';

const USAGE =
  'usage: backup FILE [--config DIR] | restore FILE [--config DIR] (without --config: the embedded default)';

/** Whether argv (after the program) asks for a backup or a restore rather than a board. */
export function isBackupCommand(argv: readonly string[]): boolean {
  return argv[0] === 'backup' || argv[0] === 'restore';
}

/** Where the board of `--config DIR` (or the embedded default) keeps its files. */
function boardFiles(config: string | undefined): BoardFiles {
  if (config === undefined) {
    const root = userDataDir();
    return { dataDir: join(root, 'board'), embeddedRoot: root };
  }
  const settings = loadBoardConfig(config, {});
  if (settings.store.engine !== 'sqlite')
    throw new Error(
      'this board keeps its state in PostgreSQL: back it up with pg_dump and restore with pg_restore (see docs/operations.md)',
    );
  return { dataDir: settings.dataDir, embeddedRoot: null };
}

/**
 * `backup FILE` and `restore FILE`, with or without `--config DIR`: prints what was done on
 * stdout; on failure one line on stderr and exit code 1 (2 for bad arguments).
 */
export function runBackupCommand(program: string, argv: readonly string[]): void {
  const [command, ...rest] = argv;
  let file: string;
  let config: string | undefined;
  try {
    const { values, positionals } = parseArgs({
      args: [...rest],
      options: { config: { type: 'string' } },
      strict: true,
      allowPositionals: true,
    });
    if (positionals.length !== 1 || positionals[0] === undefined) throw new Error(USAGE);
    file = positionals[0];
    config = values.config;
  } catch (error) {
    process.stderr.write(`${program} ${command}: ${(error as Error).message}\n${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  try {
    const board = boardFiles(config);
    if (command === 'backup') {
      const manifest = writeBackup(board, file);
      const names = manifest.files.map((f) => `${f.name} (${f.bytes} bytes)`).join(', ');
      process.stdout.write(`backup written to ${file}: ${names}\n`);
      return;
    }
    const restored = restoreBackup(file, board);
    const lines = [`restored ${file} (made ${restored.manifest.made_at}):`];
    for (const path of restored.written) lines.push(`  wrote ${path}`);
    for (const path of restored.setAside) lines.push(`  set aside ${path}`);
    if (restored.skipped.length > 0)
      lines.push(
        `  not restored (a board with --config takes its tokens from board.yaml): ${restored.skipped.join(', ')}`,
        '  machines added from the page report with the embedded registration_token: put it in board.yaml (see docs/operations.md)',
      );
    process.stdout.write(`${lines.join('\n')}\n`);
  } catch (error) {
    process.stderr.write(
      `${program} ${command}: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exitCode = 1;
  }
}

import { readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { parse } from 'yaml';
import { userDataDir } from '../../shared/data-dir.js';
import { type BoardFiles, writeBackup } from './backup.js';
import { restoreBackup } from './restore.js';

const USAGE =
  'usage: backup FILE [--config DIR] | restore FILE [--config DIR] (without --config: the embedded default)';

/** Whether argv (after the program) asks for a backup or a restore rather than a board. */
export function isBackupCommand(argv: readonly string[]): boolean {
  return argv[0] === 'backup' || argv[0] === 'restore';
}

/**
 * Where the board of `--config DIR` (or the embedded default) keeps its files. Only `data_dir`
 * and `store` are read: the tokens may be in the service's environment, which a backup run
 * from a shell does not have, and a backup needs none of them.
 */
function boardFiles(config: string | undefined, env: NodeJS.ProcessEnv): BoardFiles {
  if (config === undefined) {
    const root = userDataDir(env);
    return { dataDir: join(root, 'board'), embeddedRoot: root };
  }
  const dir = resolve(config);
  const file = join(dir, 'board.yaml');
  const raw = (parse(readFileSync(file, 'utf8')) ?? {}) as { data_dir?: unknown; store?: unknown };
  const store = env.PANOPTES_STORE ?? raw.store;
  if (store !== undefined && store !== 'sqlite')
    throw new Error(
      'this board keeps its state in PostgreSQL: back it up with pg_dump and restore with pg_restore (see docs/operations.md)',
    );
  const dataDir = raw.data_dir ?? 'data';
  if (typeof dataDir !== 'string' || dataDir === '')
    throw new Error(`${file}: data_dir must be a directory name`);
  const expanded = dataDir.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => {
    const value = env[name];
    if (value === undefined) throw new Error(`${file}: data_dir: \${${name}} is not set`);
    return value;
  });
  return { dataDir: isAbsolute(expanded) ? expanded : join(dir, expanded), embeddedRoot: null };
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
    const board = boardFiles(config, process.env);
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

import { readFileSync } from 'node:fs';
import { UsageError } from '../../shared/run-main.js';
import { importGatus } from './import-gatus.js';

const USAGE = 'usage: import gatus FILE (prints a checks: block for board.yaml)';

/** Whether argv (after the program) asks for the `import` command rather than a board. */
export function isImportCommand(argv: readonly string[]): boolean {
  return argv[0] === 'import';
}

/**
 * `import gatus FILE`: the `checks:` block on stdout, what could not be mapped on stderr (one
 * line each); exit code 0 when something was imported, 1 when nothing was, 2 for bad arguments.
 */
export function runImportCommand(program: string, argv: readonly string[]): void {
  const [, source, file, ...extra] = argv;
  if (source !== 'gatus' || file === undefined || extra.length > 0) throw new UsageError(USAGE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new UsageError(`cannot read ${file}${typeof code === 'string' ? ` (${code})` : ''}`);
  }
  let result: ReturnType<typeof importGatus>;
  try {
    result = importGatus(text);
  } catch (error) {
    throw new UsageError(`${file} is not YAML: ${error instanceof Error ? error.message : ''}`);
  }
  if (result.yaml !== '') process.stdout.write(result.yaml);
  for (const line of result.unmapped) process.stderr.write(`${program}: not mapped: ${line}\n`);
  process.stderr.write(
    `${program}: ${result.imported} check(s) imported, ${result.unmapped.length} thing(s) not mapped\n`,
  );
  if (result.imported === 0) process.exitCode = 1;
}

import { ConfigError } from './config/config-error.js';

/** Bad arguments or environment, told in one clear message (exit code 2, like a bad flag). */
export class UsageError extends Error {}

/**
 * Runs a program's start-up and turns a bad config or bad arguments into a clear message on
 * stderr and exit code 2, never a stack trace.
 */
export function runMain(program: string, start: () => Promise<void>): void {
  start().catch((error: unknown) => {
    if (error instanceof ConfigError) {
      process.stderr.write(`${program}: ${error.message}\n`);
    } else if (
      error instanceof Error &&
      'code' in error &&
      typeof error.code === 'string' &&
      error.code.startsWith('ERR_PARSE_ARGS_')
    ) {
      process.stderr.write(`${program}: ${error.message}\n`);
    } else if (
      error instanceof UsageError ||
      (error instanceof Error && error.message.startsWith('--'))
    ) {
      process.stderr.write(`${program}: ${error.message}\n`);
    } else {
      process.stderr.write(
        `${program}: cannot start: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      process.exitCode = 1;
      return;
    }
    process.exitCode = 2;
  });
}

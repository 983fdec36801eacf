import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from './helpers/tmp.js';

const LOGGER = fileURLToPath(new URL('../dist/shared/logger.js', import.meta.url));

/** A program logging as both programs do, that takes SIGHUP as a reload and ends on SIGTERM. */
const CHILD = `
import { writeFileSync } from 'node:fs';
import { createLogger } from ${JSON.stringify(LOGGER)};
const log = createLogger('lost-terminal');
process.on('SIGHUP', () => log.info('reload'));
process.on('SIGTERM', () => { log.info('stopping'); process.exit(0); });
writeFileSync(process.argv[2], String(process.pid));
setInterval(() => log.info('tick'), 20);
`;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

describe('logging to a terminal that goes away', () => {
  let left: number | null = null;
  const dir = tempDir('lost-terminal-');
  afterEach(() => {
    if (left !== null && alive(left)) process.kill(left, 'SIGKILL');
    left = null;
    dir.cleanup();
  });

  it('stops logging and still ends on SIGTERM (no exit flush retrying EIO forever)', async () => {
    const program = dir.write('child.mjs', CHILD);
    const pidFile = join(dir.path, 'pid');
    // script(1) gives the program a pty; killing script closes its master side, so every
    // later write of the program to its terminal fails with EIO.
    const script = spawn('script', ['-qfc', `node ${program} ${pidFile}`, '/dev/null'], {
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    expect(
      await until(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8') !== '', 10_000),
    ).toBe(true);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    left = pid;
    await new Promise((r) => setTimeout(r, 300));
    script.kill('SIGKILL');
    // Logging goes on against the closed terminal (a tick every 20 ms, and the SIGHUP's line).
    await new Promise((r) => setTimeout(r, 1_000));
    expect(alive(pid)).toBe(true);
    process.kill(pid, 'SIGTERM');
    expect(await until(() => !alive(pid), 5_000)).toBe(true);
  });
});

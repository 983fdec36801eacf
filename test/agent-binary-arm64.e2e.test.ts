import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentBinaryBuilt, agentBinaryIn } from '../harness/agent-binary.js';
import { type RunningProgram, startProcess } from '../harness/processes.js';
import { agentYaml, OPERATOR } from './helpers/agent-fixtures.js';
import { tempDir } from './helpers/tmp.js';

const run = promisify(execFile);
const built = agentBinaryBuilt('linux-arm64');
const QEMU = '/usr/bin/qemu-aarch64-static';
// Debian's arm64 C and C++ libraries (libc6-arm64-cross, libstdc++6-arm64-cross, libatomic1-arm64-cross).
const SYSROOT = '/usr/aarch64-linux-gnu';
const emulated = existsSync(QEMU) && existsSync(join(SYSROOT, 'lib/libatomic.so.1'));
if (process.env.CI === 'true' && !(emulated && built)) {
  throw new Error(
    'CI needs the linux-arm64 agent binary (npm run build) and qemu-user-static with the arm64 libraries',
  );
}

/** The arm64 binary, run by qemu-user on this machine: it answers, and says it is arm64. */
describe.skipIf(!emulated || !built)('the arm64 agent binary (under qemu)', () => {
  const dir = tempDir('panoptes-agent-arm64-');
  let agent: RunningProgram | undefined;
  /** The binary, unzipped from the build's .gz into the suite's directory. */
  let BINARY = '';
  beforeAll(async () => {
    BINARY = await agentBinaryIn('linux-arm64', dir.path);
  });
  afterAll(async () => {
    await agent?.stop(10_000);
    dir.cleanup();
  });

  it('answers --version', async () => {
    const started = performance.now();
    const { stdout } = await run(QEMU, ['-L', SYSROOT, BINARY, '--version'], { timeout: 120_000 });
    expect(stdout.trim()).toMatch(/^panoptes-agent \d+\.\d+\.\d+$/);
    console.log(`arm64 under qemu: --version took ${(performance.now() - started).toFixed(0)} ms`);
  }, 150_000);

  it('serves /api/overview with arch arm64', async () => {
    const config = dir.write('agent.yaml', agentYaml('', 'arm1'));
    const started = performance.now();
    agent = await startProcess(
      'arm64 agent',
      QEMU,
      ['-L', SYSROOT, BINARY, '--config', config, '--host', '127.0.0.1', '--port', '0'],
      { cwd: dir.path, timeoutMs: 180_000 },
    );
    const r = await fetch(`${agent.url}/api/overview`, {
      headers: { authorization: `Bearer ${OPERATOR}` },
      signal: AbortSignal.timeout(120_000),
    });
    const ms = performance.now() - started;
    expect(r.status).toBe(200);
    const overview = (await r.json()) as { arch: string; name: string };
    expect(overview.arch).toBe('arm64');
    console.log(
      `arm64 under qemu: start to the first /api/overview answer took ${ms.toFixed(0)} ms`,
    );
  }, 300_000);
});

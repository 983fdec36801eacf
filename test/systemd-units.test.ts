import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { analyze, verifyUnit } from './helpers/systemd.js';
import { tempDir } from './helpers/tmp.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const UNIT = readFileSync(`${ROOT}deploy/panoptes-agent.service`, 'utf8');
const BOARD_UNIT = readFileSync(`${ROOT}deploy/panoptes-board.service`, 'utf8');

const dir = tempDir('panoptes-unit-');
afterAll(() => dir.cleanup());
const verify = (text: string, name: string) => verifyUnit(dir, text, name);

describe('deploy/panoptes-agent.service', () => {
  it('starts the built agent with --config and lets the agent stop its own children', () => {
    const exec = /^ExecStart=(\S+) \/opt\/panoptes\/(\S+) --config (\S+)$/m.exec(UNIT);
    expect(exec?.[2]).toBe('dist/agent/main.js');
    expect(existsSync(`${ROOT}${exec?.[2]}`)).toBe(true);
    expect(UNIT).toMatch(/^KillMode=mixed$/m);
    expect(UNIT).toMatch(/^EnvironmentFile=-\/etc\/panoptes\/agent\.env$/m);
    // The shell's kill: a minimal Debian has no /bin/kill (test/agent-systemd.e2e.test.ts).
    expect(UNIT).toMatch(/^ExecReload=\/bin\/sh -c "kill -HUP \$\{MAINPID\}"$/m);
  });

  // Without systemd-analyze (not every CI image has it) only this one check is skipped.
  it.skipIf(analyze === null)('systemd-analyze verify accepts it without a warning', async () => {
    expect(await verify(UNIT, 'panoptes-agent.service')).toEqual({ code: 0, output: '' });
    // The check can fail: a misspelt key and a bad value are reported.
    const broken = UNIT.replace('Restart=on-failure', 'Restart=sometimes').replace(
      'UMask=',
      'Umask=',
    );
    const result = await verify(broken, 'broken.service');
    expect(result.output).toContain("Unknown key 'Umask'");
    expect(result.output).toContain('sometimes');
  });
});

describe('deploy/panoptes-board.service', () => {
  it('runs the built board as its own user, hardened, writing only its data directory', () => {
    const exec = /^ExecStart=(\S+) \/opt\/panoptes\/(\S+) --config (\S+)$/m.exec(BOARD_UNIT);
    expect(exec?.[2]).toBe('dist/board/main.js');
    expect(existsSync(`${ROOT}${exec?.[2]}`)).toBe(true);
    expect(BOARD_UNIT).toMatch(/^User=panoptes-board$/m);
    expect(BOARD_UNIT).toMatch(/^ProtectSystem=strict$/m);
    expect(BOARD_UNIT).toMatch(/^NoNewPrivileges=true$/m);
    const state = /^StateDirectory=(\S+)$/m.exec(BOARD_UNIT)?.[1];
    expect(BOARD_UNIT).toContain(`ReadWritePaths=/var/lib/${state}`);
    // systemctl reload sends SIGHUP, which reloads board.yaml (test/board-reload.e2e.test.ts).
    expect(BOARD_UNIT).toMatch(/^ExecReload=\/bin\/sh -c "kill -HUP \$\{MAINPID\}"$/m);
  });

  it.skipIf(analyze === null)('systemd-analyze verify accepts it without a warning', async () => {
    expect(await verify(BOARD_UNIT, 'panoptes-board.service')).toEqual({ code: 0, output: '' });
    const broken = BOARD_UNIT.replace('ProtectSystem=strict', 'ProtectSystem=very');
    expect((await verify(broken, 'broken-board.service')).output).toContain('very');
  });
});

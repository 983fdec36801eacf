import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { V8_FLAGS } from '../v8-flags.js';
import { enrollWarnings, startCommand, withV8Flags } from './enroll.js';
import { type EnrollArgs, parseEnrollArgs, systemdInstallDir } from './enroll-args.js';
import { enrolledConfig } from './enroll-config.js';
import { unitText } from './systemd-unit.js';

const KEY = 'k'.repeat(43);
const UPDATE_KEY = `${'A'.repeat(42)}E`;
const REG = 'registration-token-0123456789';
const ARGS = ['--board', 'https://board.example:8700/', '--name', 'lab7'];
const ENV = { PANOPTES_BOARD_KEY: KEY, PANOPTES_REGISTRATION_TOKEN: REG };

describe('enroll arguments', () => {
  it("takes the board and name as arguments, the two secrets from the environment, and the agent's usual --host/--port", () => {
    const a = parseEnrollArgs([...ARGS, '--host', '0.0.0.0', '--port', '0'], '/home/x', ENV);
    expect(a).toMatchObject({
      board: 'https://board.example:8700',
      name: 'lab7',
      key: KEY,
      registrationToken: REG,
      host: '0.0.0.0',
      port: 0,
      config: '/home/x/panoptes-agent.yaml',
      systemd: false,
      unitDir: null,
    });
  });

  it('refuses what is missing or wrong, naming the option or the variable', () => {
    const parse = (args: string[], env: Record<string, string> = ENV) =>
      parseEnrollArgs(args, '/m', env);
    expect(() => parse(ARGS, { PANOPTES_BOARD_KEY: KEY })).toThrow(
      /^PANOPTES_REGISTRATION_TOKEN is required in the environment/,
    );
    expect(() => parse(ARGS, { ...ENV, PANOPTES_BOARD_KEY: 'short' })).toThrow(
      /^PANOPTES_BOARD_KEY: at least 16/,
    );
    expect(() => parse([...ARGS.slice(0, 3), 'bad name'])).toThrow(/^--name/);
    expect(() => parse(['--board', 'ftp://x', ...ARGS.slice(2)])).toThrow(/^--board/);
    expect(() => parse([...ARGS, '--port', '70000'])).toThrow(/^--port/);
    expect(() => parse([...ARGS, '--interval', '0'])).toThrow(/^--interval/);
    expect(() => parse([...ARGS, '--unit-dir', 'u'])).toThrow(/only with --systemd/);
    expect(() => parse([...ARGS, '--token', 'x'])).toThrow(/Unknown option/);
  });

  it('refuses the secrets as arguments (ps shows those), in one line naming the variable', () => {
    expect(() => parseEnrollArgs([...ARGS, `--key=${KEY}`], '/m', ENV)).toThrow(
      /^--key: pass the board's key for this machine in the environment as PANOPTES_BOARD_KEY, not as an argument \(ps shows arguments to every user\)$/,
    );
    expect(() => parseEnrollArgs([...ARGS, '--registration-token', REG], '/m', {})).toThrow(
      /^--registration-token: pass the registration token in the environment as PANOPTES_REGISTRATION_TOKEN/,
    );
  });
});

describe('where --systemd installs, and how to start the agent again', () => {
  it('--systemd installs in a fixed place, never the directory the command was pasted in', () => {
    expect(systemdInstallDir({ HOME: '/home/a' }, true)).toBe('/var/lib/panoptes-agent');
    expect(systemdInstallDir({ HOME: '/home/a' }, false)).toBe(
      '/home/a/.local/share/panoptes-agent',
    );
    expect(systemdInstallDir({ HOME: '/home/a', XDG_DATA_HOME: '/data/a' }, false)).toBe(
      '/data/a/panoptes-agent',
    );
    expect(systemdInstallDir({ HOME: '/home/a', XDG_DATA_HOME: 'rel' }, false)).toBe(
      '/home/a/.local/share/panoptes-agent',
    );
    const env = { ...ENV, HOME: '/home/a' };
    const fixed = systemdInstallDir(env);
    const a = parseEnrollArgs([...ARGS, '--systemd'], '/tmp/paste', env);
    expect(a).toMatchObject({ installDir: fixed, config: `${fixed}/panoptes-agent.yaml` });
    // --config and --install-dir still say where; without --systemd nothing is installed.
    expect(
      parseEnrollArgs(
        [...ARGS, '--systemd', '--config', 'c.yaml', '--install-dir', 'i'],
        '/m',
        env,
      ),
    ).toMatchObject({ installDir: '/m/i', config: '/m/c.yaml' });
    expect(parseEnrollArgs(ARGS, '/tmp/paste', env)).toMatchObject({
      installDir: null,
      config: '/tmp/paste/panoptes-agent.yaml',
    });
    expect(() => parseEnrollArgs([...ARGS, '--install-dir', 'i'], '/m', env)).toThrow(
      /only with --systemd/,
    );
  });

  it('the command that starts it again names --config only when it is not beside the file', () => {
    const here = process.cwd();
    const self = [process.execPath, `${here}/panoptes-agent.mjs`];
    expect(startCommand(self, `${here}/panoptes-agent.yaml`)).toBe('node panoptes-agent.mjs');
    expect(startCommand(self, `${here}/other.yaml`)).toBe(
      'node panoptes-agent.mjs --config other.yaml',
    );
    expect(startCommand(['/opt/a b/panoptes-agent-linux-x64'], '/etc/p.yaml')).toBe(
      "'/opt/a b/panoptes-agent-linux-x64' --config /etc/p.yaml",
    );
  });
});

describe('the config enroll writes', () => {
  const args = (extra: string[] = []): EnrollArgs =>
    parseEnrollArgs([...ARGS, ...extra], '/m', ENV);

  it('a new one: name, a fresh token and bell token of its own, the key, where to report', () => {
    const text = enrolledConfig(null, args(['--interval', '5']));
    const c = parse(text) as Record<string, unknown>;
    expect(c).toEqual({
      name: 'lab7',
      token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      board_key: KEY,
      bell_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      data_dir: 'panoptes-agent-data',
      update_from_board: true,
      report: { board: 'https://board.example:8700', token: REG, interval: 5 },
    });
    expect(c.token).not.toBe(KEY);
    expect(c.bell_token).not.toBe(c.token);
    expect(text).toMatch(/^# Panoptes agent, written by/);
  });

  it('an existing one is updated in place: its token, services and comments stay; a bell token is added once', () => {
    const existing = [
      '# my lab box',
      'name: old-name',
      'token: operator-token-0123456789',
      'board_key: old-key-0123456789abcdef',
      'services:',
      '  backup: # nightly',
      '    start: [/usr/local/bin/backup]',
      '    board: [start]',
      'report:',
      '  board: https://old.example',
      '  token: old-registration-token',
      '',
    ].join('\n');
    const text = enrolledConfig(existing, args());
    expect(text).toContain('# my lab box');
    expect(text).toContain('# nightly');
    const bell = (parse(text) as { bell_token: string }).bell_token;
    expect(parse(text)).toEqual({
      name: 'lab7',
      token: 'operator-token-0123456789',
      board_key: KEY,
      bell_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      services: { backup: { start: ['/usr/local/bin/backup'], board: ['start'] } },
      report: { board: 'https://board.example:8700', token: REG },
      data_dir: 'panoptes-agent-data',
      update_from_board: true,
    });
    // Enrolling again keeps it: the hooks that carry it go on working.
    expect((parse(enrolledConfig(text, args())) as { bell_token: string }).bell_token).toBe(bell);
  });

  it('--label k=v (repeatable; k alone: an empty value) is its labels:, replacing those a config had', () => {
    const labels = (text: string) => (parse(text) as { labels?: Record<string, string> }).labels;
    const text = enrolledConfig(null, args(['--label', 'site=fra', '--label', 'gpu']));
    expect(labels(text)).toEqual({ gpu: '', site: 'fra' });
    // Enrolling again: without --label they stay; with one they are replaced.
    expect(labels(enrolledConfig(text, args()))).toEqual({ gpu: '', site: 'fra' });
    expect(labels(enrolledConfig(text, args(['--label', 'env=dev'])))).toEqual({ env: 'dev' });
    expect(labels(enrolledConfig(null, args()))).toBeUndefined();
    const bad = (label: string) => () => parseEnrollArgs([...ARGS, '--label', label], '/m', ENV);
    expect(bad('Site=fra')).toThrow(/^--label: label "Site": a key is/);
    expect(bad('site=fr a')).toThrow(/^--label: label "site": a value is/);
    expect(bad('name=x')).toThrow(/^--label: label "name"/);
  });

  it('opts in to updates from the board unless --no-updates; enrolling again keeps the choice', () => {
    const updates = (text: string) =>
      (parse(text) as { update_from_board?: boolean }).update_from_board;
    const on = enrolledConfig(null, args());
    expect(updates(on)).toBe(true);
    const off = enrolledConfig(null, args(['--no-updates']));
    expect(updates(off)).toBe(false);
    expect(updates(enrolledConfig(off, args()))).toBe(false);
    expect(updates(enrolledConfig(on, args(['--no-updates'])))).toBe(false);
  });

  it("pins the board's update key the command carries; a new one replaces the old", () => {
    const pinned = (text: string) => (parse(text) as { update_key?: string }).update_key;
    const first = enrolledConfig(null, args(['--update-key', UPDATE_KEY]));
    expect(pinned(first)).toBe(UPDATE_KEY);
    const other = `${'B'.repeat(42)}E`;
    expect(pinned(enrolledConfig(first, args([`--update-key=${other}`])))).toBe(other);
    // A command without one (an older board) leaves what the file holds.
    expect(pinned(enrolledConfig(first, args()))).toBe(UPDATE_KEY);
    expect(pinned(enrolledConfig(null, args()))).toBeUndefined();
    expect(() => args(['--update-key', 'not-a-key'])).toThrow(/^--update-key/);
  });

  it('says plainly when the board is plain HTTP, and when no update key came with the command', () => {
    const plain = (extra: string[]) =>
      enrollWarnings(
        parseEnrollArgs(
          ['--board', 'http://board.lan:8700', '--name', 'lab7', ...extra],
          '/m',
          ENV,
        ),
      );
    const signedPlain = plain(['--update-key', UPDATE_KEY]);
    expect(signedPlain[0]).toMatch(/^warning: http:\/\/board\.lan:8700 is plain HTTP/);
    expect(signedPlain[1]).toMatch(/signed by the board's key pinned here/);
    expect(plain([])).toEqual([
      expect.stringMatching(/plain HTTP/),
      expect.stringMatching(/^warning: no --update-key given/),
    ]);
    expect(plain(['--no-updates'])).toEqual([expect.stringMatching(/plain HTTP/)]);
    expect(enrollWarnings(args(['--update-key', UPDATE_KEY]))).toEqual([]);
  });

  it('refuses a file that is not an agent config', () => {
    expect(() => enrolledConfig('- a list\n', args())).toThrow(/is not an agent config/);
    expect(() => enrolledConfig('a: [', args())).toThrow(/is not an agent config/);
  });
});

describe('the systemd unit', () => {
  const parts = {
    program: ['/usr/bin/node', '/home/a b/panoptes-agent.mjs'],
    config: '/home/a b/panoptes-agent.yaml',
    workDir: '/home/a b',
    name: 'lab7',
    board: 'https://board.example',
    user: false,
  };

  it('runs this node and this file with this config, each path one word, and holds no secret', () => {
    const text = unitText(parts);
    // The secrets are in the config file (0600) alone: the unit is only paths and names.
    expect(Object.keys(parts).sort()).toEqual([
      'board',
      'config',
      'name',
      'program',
      'user',
      'workDir',
    ]);
    expect(text).toContain(
      'ExecStart="/usr/bin/node" "/home/a b/panoptes-agent.mjs" --config "/home/a b/panoptes-agent.yaml"',
    );
    expect(text).toContain('WantedBy=multi-user.target');
    expect(unitText({ ...parts, user: true })).toContain('WantedBy=default.target');
    // The agent binary runs alone: no node.
    expect(unitText({ ...parts, program: ['/opt/panoptes-agent-linux-x64'] })).toContain(
      'ExecStart="/opt/panoptes-agent-linux-x64" --config "/home/a b/panoptes-agent.yaml"',
    );
  });

  it("runs node with the agent's V8 flags before the file; the binary alone", () => {
    const program = withV8Flags(['/usr/bin/node', '/home/a b/panoptes-agent.mjs']);
    expect(program).toEqual(['/usr/bin/node', ...V8_FLAGS, '/home/a b/panoptes-agent.mjs']);
    expect(unitText({ ...parts, program })).toContain(
      `ExecStart="/usr/bin/node" ${V8_FLAGS.map((f) => `"${f}"`).join(' ')} "/home/a b/panoptes-agent.mjs" --config`,
    );
    expect(withV8Flags(['/opt/panoptes-agent-linux-x64'])).toEqual([
      '/opt/panoptes-agent-linux-x64',
    ]);
  });

  it('refuses a path a unit cannot carry', () => {
    expect(() => unitText({ ...parts, config: '/x\n[Service]\nExecStart=/bin/evil' })).toThrow(
      /cannot carry/,
    );
    expect(() => unitText({ ...parts, config: '/x/%h' })).toThrow(/cannot carry/);
  });
});

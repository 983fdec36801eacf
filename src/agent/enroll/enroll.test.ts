import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type EnrollArgs, parseEnrollArgs } from './enroll-args.js';
import { enrolledConfig } from './enroll-config.js';
import { unitText } from './systemd-unit.js';

const KEY = 'k'.repeat(43);
const REG = 'registration-token-0123456789';
const BASE = ['--board', 'https://board.example:8700/', '--name', 'lab7', '--key', KEY];
const ARGS = [...BASE, '--registration-token', REG];

describe('enroll arguments', () => {
  it("takes the four the board gives, and the agent's usual --host/--port", () => {
    const a = parseEnrollArgs([...ARGS, '--host', '0.0.0.0', '--port', '0'], '/home/x');
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

  it('refuses what is missing or wrong, naming the option', () => {
    expect(() => parseEnrollArgs(BASE)).toThrow(/^--registration-token is required/);
    expect(() => parseEnrollArgs([...ARGS.slice(0, 3), 'bad name', ...ARGS.slice(4)])).toThrow(
      /^--name/,
    );
    expect(() => parseEnrollArgs(['--board', 'ftp://x', ...ARGS.slice(2)])).toThrow(/^--board/);
    expect(() => parseEnrollArgs([...BASE.slice(0, 5), 'short', ...ARGS.slice(6)])).toThrow(
      /^--key: at least 16/,
    );
    expect(() => parseEnrollArgs([...ARGS, '--port', '70000'])).toThrow(/^--port/);
    expect(() => parseEnrollArgs([...ARGS, '--interval', '0'])).toThrow(/^--interval/);
    expect(() => parseEnrollArgs([...ARGS, '--unit-dir', 'u'])).toThrow(/only with --systemd/);
    expect(() => parseEnrollArgs([...ARGS, '--token', 'x'])).toThrow(/Unknown option/);
  });
});

describe('the config enroll writes', () => {
  const args = (extra: string[] = []): EnrollArgs => parseEnrollArgs([...ARGS, ...extra], '/m');

  it('a new one: name, a fresh token of its own, the key, where to report', () => {
    const text = enrolledConfig(null, args(['--interval', '5']));
    const c = parse(text) as Record<string, unknown>;
    expect(c).toEqual({
      name: 'lab7',
      token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      board_key: KEY,
      data_dir: 'panoptes-agent-data',
      report: { board: 'https://board.example:8700', token: REG, interval: 5 },
    });
    expect(c.token).not.toBe(KEY);
    expect(text).toMatch(/^# Panoptes agent, written by/);
  });

  it('an existing one is updated in place: its token, services and comments stay', () => {
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
    expect(parse(text)).toEqual({
      name: 'lab7',
      token: 'operator-token-0123456789',
      board_key: KEY,
      services: { backup: { start: ['/usr/local/bin/backup'], board: ['start'] } },
      report: { board: 'https://board.example:8700', token: REG },
      data_dir: 'panoptes-agent-data',
    });
  });

  it('refuses a file that is not an agent config', () => {
    expect(() => enrolledConfig('- a list\n', args())).toThrow(/is not an agent config/);
    expect(() => enrolledConfig('a: [', args())).toThrow(/is not an agent config/);
  });
});

describe('the systemd unit', () => {
  const parts = {
    node: '/usr/bin/node',
    script: '/home/a b/panoptes-agent.mjs',
    config: '/home/a b/panoptes-agent.yaml',
    workDir: '/home/a b',
    name: 'lab7',
    board: 'https://board.example',
    user: false,
  };

  it('runs this node and this file with this config, each path one word', () => {
    const text = unitText(parts);
    expect(text).toContain(
      'ExecStart="/usr/bin/node" "/home/a b/panoptes-agent.mjs" --config "/home/a b/panoptes-agent.yaml"',
    );
    expect(text).toContain('WantedBy=multi-user.target');
    expect(unitText({ ...parts, user: true })).toContain('WantedBy=default.target');
  });

  it('refuses a path a unit cannot carry', () => {
    expect(() => unitText({ ...parts, config: '/x\n[Service]\nExecStart=/bin/evil' })).toThrow(
      /cannot carry/,
    );
    expect(() => unitText({ ...parts, config: '/x/%h' })).toThrow(/cannot carry/);
  });
});

import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../test/helpers/tmp.js';
import { ConfigError } from '../shared/config/config-error.js';
import { loadAgentConfig } from './config.js';
import { publishedActions } from './service-config.js';

const dir = tempDir();
afterAll(() => dir.cleanup());
let n = 0;
const TOKEN = 'agent-token-0123456789';
const KEY = 'board-key-0123456789';

function file(yaml: string): string {
  n += 1;
  return dir.write(`a${n}.yaml`, yaml);
}

function problems(yaml: string, env: NodeJS.ProcessEnv = {}): string[] {
  try {
    loadAgentConfig(file(yaml), {}, env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((p) => `${p.field}: ${p.problem}`);
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('agent config', () => {
  it('reads both kinds of service with their defaults', () => {
    const f = file(
      `name: web1\ntoken: ${TOKEN}\nboard_key: ${KEY}\nservices:\n` +
        '  backup:\n    start: [systemctl, start, backup]\n    stop: [systemctl, stop, backup]\n' +
        '    status: [systemctl, is-active, --quiet, backup]\n    board: [start, stop]\n' +
        '  worker:\n    run: [python3, -m, http.server, "9000"]\n    board: [start]\n' +
        '  once:\n    start: [touch, x]\n',
    );
    const s = loadAgentConfig(f, {}, {});
    expect(s).toMatchObject({
      name: 'web1',
      host: '127.0.0.1',
      port: 8701,
      boardKey: KEY,
      location: null,
      proxy: null,
      report: null,
      dataDir: `${dir.path}/data`,
    });
    expect(s.services).toEqual([
      {
        kind: 'command',
        name: 'backup',
        start: ['systemctl', 'start', 'backup'],
        stop: ['systemctl', 'stop', 'backup'],
        status: ['systemctl', 'is-active', '--quiet', 'backup'],
        board: ['start', 'stop'],
        timeoutMs: 60000,
        cwd: null,
      },
      {
        kind: 'process',
        name: 'worker',
        run: ['python3', '-m', 'http.server', '9000'],
        board: ['start'],
        stopGraceMs: 10000,
        cwd: null,
      },
      {
        kind: 'command',
        name: 'once',
        start: ['touch', 'x'],
        stop: null,
        status: null,
        board: [],
        timeoutMs: 60000,
        cwd: null,
      },
    ]);
    expect(s.services.map(publishedActions)).toEqual([
      ['start', 'stop'],
      ['start', 'stop'],
      ['start'],
    ]);
  });

  it('reads GPUs every gpu_interval, else every report interval, else every 10 s', () => {
    const at = (yaml: string) => loadAgentConfig(file(`name: g\ntoken: ${TOKEN}\n${yaml}`), {}, {});
    expect(at('').gpuIntervalMs).toBe(10_000);
    expect(
      at('report: {board: "http://x:1", token: "registration-token-0123", interval: 3}\n')
        .gpuIntervalMs,
    ).toBe(3000);
    expect(
      at('gpu_interval: 2.5\nreport: {board: "http://x:1", token: "registration-token-0123"}\n')
        .gpuIntervalMs,
    ).toBe(2500);
    expect(() => at('gpu_interval: 0.5\n')).toThrow(/gpu_interval/);
  });

  it('samples the machine every sample_interval, else every report interval, else every 10 s', () => {
    const at = (yaml: string) => loadAgentConfig(file(`name: g\ntoken: ${TOKEN}\n${yaml}`), {}, {});
    expect(at('').sampleIntervalMs).toBe(10_000);
    expect(
      at('report: {board: "http://x:1", token: "registration-token-0123", interval: 3}\n')
        .sampleIntervalMs,
    ).toBe(3000);
    expect(
      at(
        'sample_interval: 2\ngpu_interval: 7\nreport: {board: "http://x:1", token: "registration-token-0123"}\n',
      ),
    ).toMatchObject({ sampleIntervalMs: 2000, gpuIntervalMs: 7000 });
    expect(() => at('sample_interval: 0.5\n')).toThrow(/sample_interval/);
  });

  it('reads temperatures under /sys/class/hwmon, or the hwmon root the file names', () => {
    const at = (yaml: string) => loadAgentConfig(file(`name: t\ntoken: ${TOKEN}\n${yaml}`), {}, {});
    expect(at('').hwmonRoot).toBe('/sys/class/hwmon');
    expect(at('hwmon: /srv/hwmon\n').hwmonRoot).toBe('/srv/hwmon');
    // Relative to the file, as data_dir is.
    expect(at('hwmon: sensors\n').hwmonRoot).toBe(`${dir.path}/sensors`);
    expect(() => at('hwmon: ""\n')).toThrow(/hwmon/);
  });

  it('reads report: with env overrides for every secret', () => {
    const f = file(
      `name: lab3\ntoken: ${TOKEN}\nreport: {board: "http://127.0.0.1:8700/", token: "\${REG}"}\n`,
    );
    const s = loadAgentConfig(
      f,
      {},
      {
        REG: 'placeholder',
        PANOPTES_AGENT_TOKEN: 'agent-token-from-env',
        PANOPTES_BOARD_KEY: 'board-key-from-env!',
        PANOPTES_REGISTRATION_TOKEN: 'registration-from-env',
      },
    );
    expect(s.token).toBe('agent-token-from-env');
    expect(s.boardKey).toBe('board-key-from-env!');
    expect(s.report).toEqual({
      board: 'http://127.0.0.1:8700',
      token: 'registration-from-env',
      intervalMs: 10000,
      ca: null,
    });
  });

  it('remembers which variables the secret fields were read from, and reads a service env', () => {
    const f = file(
      'name: lab3\ntoken: "${MY_TOKEN}"\nboard_key: "k-${MY_KEY}"\nlocation: "http://${HOST_NAME}:1"\n' +
        'report: {board: "http://127.0.0.1:8700", token: "${MY_REG}"}\n' +
        'services:\n  w:\n    run: [sleep, "1"]\n    env: {MODE: fast, OTHER: "${HOST_NAME}"}\n',
    );
    const s = loadAgentConfig(
      f,
      {},
      {
        MY_TOKEN: TOKEN,
        MY_KEY: KEY,
        MY_REG: 'registration-0123456789',
        HOST_NAME: 'lab3',
      },
    );
    expect([...(s.secretEnv ?? [])].sort()).toEqual(['MY_KEY', 'MY_REG', 'MY_TOKEN']);
    expect(s.services[0]).toMatchObject({ env: { MODE: 'fast', OTHER: 'lab3' } });
  });

  it('refuses a service env with bad names, too many names or long values', () => {
    const many = Array.from({ length: 65 }, (_, i) => `V${i}: x`).join(', ');
    expect(
      problems(
        `name: a\ntoken: ${TOKEN}\nservices:\n  s:\n    start: [x]\n    env: {"1BAD": x, "A=B": y}\n` +
          `  t:\n    start: [x]\n    env: {${many}}\n  u:\n    start: [x]\n    env: {V: "${'x'.repeat(4097)}"}\n` +
          '  v:\n    start: [x]\n    env: {V: [1]}\n',
      ),
    ).toEqual([
      'services.s.env.1BAD: is not a valid name',
      'services.s.env.A=B: is not a valid name',
      'services.t.env: must not have more than 64 properties',
      'services.u.env.V: must be at most 4096 characters long',
      'services.v.env.V: must be string',
    ]);
  });

  it('refuses short tokens, unknown keys and bad service names', () => {
    expect(
      problems(
        `name: a\ntoken: short\nboard_key: tiny\nreport: {board: "http://x", token: small}\nservices: {"bad name": {start: [x]}}\nextra: 1\n`,
      ),
    ).toEqual([
      'extra: unknown key',
      'token: must be at least 16 characters long',
      'board_key: must be at least 16 characters long',
      'services.bad name: is not a valid name',
      'report.token: must be at least 16 characters long',
    ]);
  });

  it('refuses a service that is neither kind, mixes kinds, or allows what it lacks', () => {
    expect(
      problems(
        `name: a\ntoken: ${TOKEN}\nservices:\n  none: {status: [/bin/true]}\n  both: {run: [sleep, "1"], start: [x]}\n  lacks: {start: [x], board: [stop]}\n  typo: {start: [x], bord: [start]}\n`,
      ),
    ).toEqual(['services.typo.bord: unknown key']);
    expect(
      problems(
        `name: a\ntoken: ${TOKEN}\nservices:\n  none: {status: [/bin/true]}\n  both: {run: [sleep, "1"], start: [x]}\n  lacks: {start: [x], board: [stop]}\n`,
      ),
    ).toEqual([
      'services.none: needs `container`, `run`, or `start` and/or `stop`',
      'services.both: a process service (run) has no start, stop, status or timeout',
      'services.lacks.board: allows stop, which the service does not publish',
    ]);
  });

  it('reads a container service (stop_grace default 10 s) and refuses one with commands', () => {
    const s = loadAgentConfig(
      file(
        `name: web1\ntoken: ${TOKEN}\ncontainers:\n  socket: run/docker.sock\nservices:\n` +
          '  web:\n    container: web-1\n    board: [start, stop]\n    stop_grace: 8\n' +
          '  db:\n    container: 0123456789ab\n',
      ),
      {},
      {},
    );
    expect(s.containerSocket).toBe(`${dir.path}/run/docker.sock`);
    expect(s.sampleIntervalMs).toBe(10_000);
    expect(s.services).toEqual([
      {
        kind: 'container',
        name: 'web',
        container: 'web-1',
        board: ['start', 'stop'],
        stopGraceMs: 8000,
      },
      { kind: 'container', name: 'db', container: '0123456789ab', board: [], stopGraceMs: 10_000 },
    ]);
    expect(s.services.map(publishedActions)).toEqual([
      ['start', 'stop'],
      ['start', 'stop'],
    ]);
    expect(loadAgentConfig(file(`name: a\ntoken: ${TOKEN}\n`), {}, {}).containerSocket).toBeNull();
    expect(
      problems(
        `name: a\ntoken: ${TOKEN}\nservices:\n  web: {container: web, start: [x], cwd: /}\n  bad: {container: "-rf /"}\n`,
      ),
    ).toEqual(['services.bad.container: must match ^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,254}$']);
    expect(
      problems(
        `name: a\ntoken: ${TOKEN}\nservices:\n  web: {container: web, start: [x], cwd: /}\n`,
      ),
    ).toEqual([
      'services.web: a container service (container) has no start, cwd: the engine starts and stops it',
    ]);
  });

  it('refuses a board key equal to the operator token', () => {
    expect(problems(`name: a\ntoken: ${TOKEN}\nboard_key: ${TOKEN}\n`)).toEqual([
      'board_key: must differ from token (it has less power)',
    ]);
  });

  it('reads bell_token (env PANOPTES_BELL_TOKEN overrides), which must differ from the other two', () => {
    const BELL = 'bell-token-0123456789';
    const base = `name: web1\ntoken: ${TOKEN}\nboard_key: ${KEY}\n`;
    expect(loadAgentConfig(file(base), {}, {}).bellToken).toBeNull();
    expect(loadAgentConfig(file(`${base}bell_token: ${BELL}\n`), {}, {}).bellToken).toBe(BELL);
    const fromEnv = loadAgentConfig(
      file(base),
      {},
      { PANOPTES_BELL_TOKEN: 'bell-from-env-0123456' },
    );
    expect(fromEnv.bellToken).toBe('bell-from-env-0123456');
    expect(problems(`${base}bell_token: ${TOKEN}\n`)).toEqual([
      'bell_token: must differ from token (it has less power)',
    ]);
    expect(problems(`${base}bell_token: ${KEY}\n`)).toEqual([
      'bell_token: must differ from board_key',
    ]);
    expect(problems(`${base}bell_token: short\n`)[0]).toMatch(/^bell_token: .*16/);
  });

  it('reads labels: (none: no labels), refusing one that breaks the label rule by name', () => {
    const base = `name: web1\ntoken: ${TOKEN}\n`;
    expect(loadAgentConfig(file(base), {}, {}).labels).toEqual({});
    const s = loadAgentConfig(file(`${base}labels: {site: fra, gpu: "", env: prod}\n`), {}, {});
    expect(s.labels).toEqual({ env: 'prod', gpu: '', site: 'fra' });
    expect(Object.keys(s.labels)).toEqual(['env', 'gpu', 'site']);
    expect(problems(`${base}labels: {Site: fra}\n`)).toEqual([
      'labels: label "Site": a key is 1-63 of a-z 0-9 . _ / -, starting with a letter or digit',
    ]);
    expect(problems(`${base}labels: {site: "-fra"}\n`)[0]).toMatch(
      /^labels: label "site": a value/,
    );
    expect(problems(`${base}labels: {name: x}\n`)[0]).toMatch(/^labels: label "name"/);
  });

  it('requires name and token', () => {
    expect(problems('port: 1\n')).toEqual(['name: is required', 'token: is required']);
  });

  it('update_from_board: off unless set; true is the board of report:; a URL names a board', () => {
    const base = `name: web1\ntoken: ${TOKEN}\n`;
    const report =
      'report: {board: "https://board.example:8700/", token: "registration-token-0123"}\n';
    expect(loadAgentConfig(file(base + report), {}, {}).updateFrom).toBeNull();
    expect(
      loadAgentConfig(file(`${base}update_from_board: false\n${report}`), {}, {}).updateFrom,
    ).toBeNull();
    expect(
      loadAgentConfig(file(`${base}update_from_board: true\n${report}`), {}, {}).updateFrom,
    ).toEqual({
      board: 'https://board.example:8700',
      ca: null,
      key: null,
    });
    const key = `update_key: ${'A'.repeat(42)}E\n`;
    expect(
      loadAgentConfig(file(`${base}update_from_board: https://other.example/\n${key}`), {}, {})
        .updateFrom,
    ).toEqual({ board: 'https://other.example', ca: null, key: `${'A'.repeat(42)}E` });
    // Not a 32-byte key in base64url: refused, naming the field.
    expect(problems(`${base}update_key: ${'A'.repeat(42)}B\n`)[0]).toMatch(/^update_key/);
    expect(problems(`${base}update_key: short\n`)[0]).toMatch(/^update_key/);
    expect(problems(`${base}update_from_board: true\n`)).toEqual([
      "update_from_board: true takes the board of report:, which is not set; give the board's https URL",
    ]);
    expect(problems(`${base}update_from_board: http://plain.example\n`)[0]).toMatch(
      /^update_from_board/,
    );
  });
});

import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/helpers/tmp.js';
import { ConfigError } from '../../shared/config/config-error.js';
import { loadBoardConfig } from '../config/config.js';

const dir = tempDir();
afterAll(() => dir.cleanup());
let n = 0;

function load(yaml: string) {
  n += 1;
  dir.write(`c${n}/board.yaml`, yaml);
  return loadBoardConfig(`${dir.path}/c${n}`, {}, {});
}

function problems(yaml: string): string[] {
  try {
    load(yaml);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((p) => `${p.field}: ${p.problem}`);
    throw error;
  }
  throw new Error('expected a ConfigError');
}

const HEAD = ['board_token: board-token-0123456789', 'checks:'];

describe('conditions in board.yaml', () => {
  it('are parsed at load: good ones are kept and evaluate', () => {
    const s = load(
      [
        ...HEAD,
        '  - name: api',
        '    type: http',
        '    target: https://example.org/health',
        '    runners: { board: true }',
        '    conditions:',
        '      - "[STATUS] == 200"',
        '      - "[BODY].data.items[0].id == 7"',
        '      - "[CERTIFICATE_EXPIRATION] > 336h"',
      ].join('\n'),
    );
    const check = s.checks[0];
    expect(check?.conditions.map((c) => c.text)).toEqual([
      '[STATUS] == 200',
      '[BODY].data.items[0].id == 7',
      '[CERTIFICATE_EXPIRATION] > 336h',
    ]);
    expect(check?.conditions[0]?.check({ connected: true, responseTimeMs: 5, status: 503 })).toBe(
      '[STATUS] (503) == 200',
    );
  });

  it('a bad condition fails the load, naming checks[i].conditions[j] and the position', () => {
    const yaml = [
      ...HEAD,
      '  - { name: ok, type: tcp, target: "db:5432", runners: { board: true } }',
      '  - name: api',
      '    type: http',
      '    target: https://example.org/',
      '    runners: { board: true }',
      '    conditions:',
      '      - "[STATUS] == 200"',
      '      - "[STAUTS] == 200"',
      '      - "[CERTIFICATE_EXPIRATION] > 336x"',
    ].join('\n');
    expect(problems(yaml)).toEqual([
      'checks[1].conditions[1]: unknown placeholder [STAUTS] at position 1: [STAUTS] == 200',
      'checks[1].conditions[2]: bad number or duration 336x (e.g. 500, 48h, 30m) at position 28: [CERTIFICATE_EXPIRATION] > 336x',
    ]);
  });
});

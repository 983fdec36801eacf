import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/helpers/tmp.js';
import { ConfigError } from '../../shared/config/config-error.js';
import { loadBoardConfig } from '../config/config.js';
import { HISTORY_DEFAULTS } from './settings.js';

const dir = tempDir();
afterAll(() => dir.cleanup());
let n = 0;
const load = (extra: string) => {
  n += 1;
  dir.write(`c${n}/board.yaml`, `board_token: board-token-0123456789\n${extra}`);
  return loadBoardConfig(`${dir.path}/c${n}`, {}, {});
};

describe('history: in board.yaml', () => {
  it('is on with the documented defaults when absent', () => {
    expect(load('').history).toEqual({
      raw: 86_400_000,
      m5: 30 * 86_400_000,
      h1: 400 * 86_400_000,
    });
    expect(load('').history).toEqual(HISTORY_DEFAULTS);
  });

  it('turns off with false and takes each tier in seconds or with a unit', () => {
    expect(load('history: false\n').history).toBeNull();
    expect(load('history: {raw: 6h, 5m: 14d, 1h: 3600}\n').history).toEqual({
      raw: 6 * 3_600_000,
      m5: 14 * 86_400_000,
      h1: 3_600_000,
    });
  });

  it('names the field of a bad duration or an unknown tier', () => {
    const problem = (yaml: string) => {
      try {
        load(yaml);
      } catch (error) {
        if (error instanceof ConfigError) return error.problems.map((p) => p.field).join(' ');
      }
      return 'no problem';
    };
    expect(problem('history: {raw: 6 hours}\n')).toMatch(/history/);
    expect(problem('history: {minute: 30d}\n')).toMatch(/history/);
  });
});

import { describe, expect, it } from 'vitest';
import type { ConfigProblem } from '../../shared/config/config-error.js';
import { CheckBook } from './check-book.js';
import { type CheckConfig, readChecks } from './check-config.js';
import { checkRows } from './check-rows.js';
import type { CheckHistoryPort } from './ports.js';

const NOW = Date.parse('2026-01-02T00:00:00Z');

function book(): CheckBook {
  const problems: ConfigProblem[] = [];
  const config = (name: string) =>
    ({ name, type: 'tcp', target: 'x.example:1', runners: { board: true } }) as CheckConfig;
  const b = new CheckBook({ now: () => NOW });
  b.configure(readChecks([config('api'), config('db')], problems));
  expect(problems).toEqual([]);
  return b;
}

const everything = { check: () => true, machine: () => true };

describe('checkRows: uptime_24h from the checks history', () => {
  it('asks the port for the last 24 hours of each check shown; without a port it is null', async () => {
    const asked: [string, number, number][] = [];
    const port: CheckHistoryPort = {
      record: () => undefined,
      series: async () => [],
      uptime: async (check, from, to) => {
        asked.push([check, from, to]);
        return check === 'api' ? 0.75 : null;
      },
      forgotten: () => undefined,
    };
    const rows = await checkRows(book(), everything, port, NOW);
    expect(rows.map((r) => [r.name, r.uptime_24h])).toEqual([
      ['api', 0.75],
      ['db', null],
    ]);
    expect(asked).toEqual([
      ['api', NOW - 86_400_000, NOW],
      ['db', NOW - 86_400_000, NOW],
    ]);
    const without = await checkRows(book(), everything, null, NOW);
    expect(without.map((r) => r.uptime_24h)).toEqual([null, null]);
    const onlyDb = await checkRows(book(), { ...everything, check: (n) => n === 'db' }, port, NOW);
    expect(onlyDb.map((r) => r.name)).toEqual(['db']);
  });
});

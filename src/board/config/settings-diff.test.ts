import { describe, expect, it } from 'vitest';
import { boardSettings } from './config.js';
import { casChanged, diffSettings, keepRestartFields } from './settings-diff.js';

const TOKEN = 'board-token-0123456789';
const OTHER = 'board-token-abcdefghij';
const KEY = 'machine-key-0123456789';
const make = (raw: Partial<Parameters<typeof boardSettings>[0]>) =>
  boardSettings({ board_token: TOKEN, ...raw }, '/etc/panoptes/board.yaml', '/etc/panoptes');

describe('diffSettings', () => {
  it('names what changed, never a value, and tells live fields from restart ones', () => {
    const running = make({ port: 8700 });
    const next = make({
      board_token: OTHER,
      port: 8800,
      data_dir: '/srv/x',
      sweep_interval: 2,
      machines: [{ name: 'web1', url: 'http://127.0.0.1:1', key: KEY }],
    });
    const change = diffSettings(running, next);
    expect(change).toEqual({
      applied: ['board_token', 'sweep_interval', 'machines'],
      // board_id defaults to hostname:port, so it follows the port.
      restart: ['port', 'data_dir', 'board_id'],
    });
    expect(JSON.stringify(change)).not.toContain(OTHER);
  });

  it('finds nothing to do in an unchanged file', () => {
    expect(diffSettings(make({}), make({}))).toEqual({ applied: [], restart: [] });
  });

  it('keeps the running value of each restart field, and takes the rest', () => {
    const running = make({ port: 8700, max_announced: 10 });
    const kept = keepRestartFields(
      running,
      make({ port: 9, max_announced: 5, board_token: OTHER }),
    );
    expect(kept).toMatchObject({ port: 8700, maxAnnounced: 10, boardToken: OTHER });
  });

  it('sees a change of CA only when the trusted CAs differ', () => {
    const machine = { name: 'web1', url: 'https://127.0.0.1:1', key: KEY };
    const running = make({ machines: [machine] });
    expect(casChanged(running, make({ machines: [machine], sweep_interval: 3 }))).toBe(false);
    const withCa = { ...running, ca: '-----BEGIN CERTIFICATE-----\n' };
    expect(casChanged(running, withCa)).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../shared/config/config-error.js';
import { Value } from '../../shared/typebox.js';
import { boardSettings } from '../config/config.js';
import { NotifyConfigFile } from './config.js';

const TOKEN = 'board-token-0123456789';
const SECRET_URL = 'discord://discord-token-secret-42@1234';

function problems(notify: unknown): { field: string; problem: string }[] {
  try {
    boardSettings(
      { board_token: TOKEN, notify } as never,
      '/etc/panoptes/board.yaml',
      '/etc/panoptes',
    );
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('/etc/panoptes/board.yaml');
    expect((error as Error).message).not.toContain('discord-token-secret-42');
    return [...(error as ConfigError).problems];
  }
}

describe('board.yaml notify: checked with file and field, never quoting a URL', () => {
  it('accepts a full section and applies defaults', () => {
    const s = boardSettings(
      {
        board_token: TOKEN,
        public_url: 'https://board.example',
        notify: {
          channels: [{ name: 'ops', url: SECRET_URL }],
          rules: [{ events: ['down'], channels: ['ops'] }],
          templates: { discord: '{{machine}}' },
        },
      },
      '/etc/panoptes/board.yaml',
      '/etc/panoptes',
    );
    expect(s.publicUrl).toBe('https://board.example');
    expect(s.notify.channels.map((c) => [c.name, c.parsed.kind])).toEqual([['ops', 'discord']]);
    expect(s.notify.rules[0]).toMatchObject({
      afterMs: 0,
      failures: 1,
      repeatMs: 0,
      repeatMax: null,
    });
    expect(s.notify.timeoutMs).toBe(10_000);
  });

  it('names each bad field', () => {
    expect(
      problems({
        channels: [
          { name: 'ops', url: 'discord://@1234' },
          { name: 'ops', url: SECRET_URL },
          { name: 'x', url: 'gopher://h/p' },
          { name: 'y', url: 'ntfy://h/t', secret: 'a-secret-of-16-chars' },
        ],
        rules: [
          { events: ['down'], channels: ['nope'], after: 5, failures: 2 },
          { events: ['threshold'], channels: ['ops'] },
          { events: ['down'], channels: ['ops'], why: ['error'], path: '/' },
        ],
        templates: { unknown: 'x' },
      }).map((p) => p.field),
    ).toEqual([
      'notify.channels[0].url',
      'notify.channels[1].name',
      'notify.channels[2].url',
      'notify.channels[3].url',
      'notify.rules[0].channels[0]',
      'notify.rules[0].failures',
      'notify.rules[1].metric',
      'notify.rules[1].above',
      'notify.rules[2].path',
      'notify.rules[2].why',
      'notify.templates.unknown',
    ]);
  });

  it('takes container and disk_health rules, a containers filter, and metric temp', () => {
    const s = boardSettings(
      {
        board_token: TOKEN,
        notify: {
          channels: [{ name: 'ops', url: SECRET_URL }],
          rules: [
            { events: ['container', 'disk_health'], channels: ['ops'], containers: ['web*'] },
            { events: ['threshold'], channels: ['ops'], metric: 'temp', above: 85 },
          ],
        },
      },
      '/etc/panoptes/board.yaml',
      '/etc/panoptes',
    );
    const [containers, temp] = s.notify.rules;
    expect(containers?.containerMatches('web-1')).toBe(true);
    expect(containers?.containerMatches('db')).toBe(false);
    expect(temp?.containerMatches('db')).toBe(true);
    expect(temp?.metric).toBe('temp');
    expect(
      problems({
        channels: [{ name: 'ops', url: SECRET_URL }],
        rules: [{ events: ['down'], channels: ['ops'], containers: ['web'] }],
      }).map((p) => p.field),
    ).toEqual(['notify.rules[0].containers']);
    const rule = (metric: string) => ({
      rules: [{ events: ['threshold'], channels: ['ops'], metric, above: 1 }],
    });
    expect(Value.Check(NotifyConfigFile, rule('temp'))).toBe(true);
    expect(Value.Check(NotifyConfigFile, rule('net_tx'))).toBe(true);
    expect(Value.Check(NotifyConfigFile, rule('fan'))).toBe(false);
  });

  it('takes a rule selector beside machines (both must hold), and names a bad one with its position', () => {
    const s = boardSettings(
      {
        board_token: TOKEN,
        notify: {
          channels: [{ name: 'ops', url: SECRET_URL }],
          rules: [
            { events: ['down'], channels: ['ops'], machines: ['web*'], selector: 'env=prod' },
          ],
        },
      },
      '/etc/panoptes/board.yaml',
      '/etc/panoptes',
    );
    const rule = s.notify.rules[0];
    expect(rule?.selector).toBe('env=prod');
    expect(rule?.matches('web1', { env: 'prod' })).toBe(true);
    expect(rule?.matches('web1', { env: 'dev' })).toBe(false);
    expect(rule?.matches('db1', { env: 'prod' })).toBe(false);
    expect(
      problems({
        channels: [{ name: 'ops', url: SECRET_URL }],
        rules: [{ events: ['down'], channels: ['ops'], selector: 'env=prod,site in (fra' }],
      }),
    ).toEqual([
      { field: 'notify.rules[0].selector', problem: expect.stringMatching(/at position \d+$/) },
    ]);
  });

  it('takes check rules with checks: globs (absent: every check), and checks: on other rules is a problem', () => {
    const s = boardSettings(
      {
        board_token: TOKEN,
        notify: {
          channels: [{ name: 'ops', url: SECRET_URL }],
          rules: [
            { events: ['check'], channels: ['ops'], checks: ['api-*'] },
            { events: ['check'], channels: ['ops'] },
          ],
        },
      },
      '/etc/panoptes/board.yaml',
      '/etc/panoptes',
    );
    const [api, every] = s.notify.rules;
    expect(api?.checkMatches('API-x')).toBe(true);
    expect(api?.checkMatches('db')).toBe(false);
    expect(every?.checkMatches('db')).toBe(true);
    expect(
      problems({
        channels: [{ name: 'ops', url: SECRET_URL }],
        rules: [{ events: ['down'], channels: ['ops'], checks: ['api-*'] }],
      }),
    ).toEqual([{ field: 'notify.rules[0].checks', problem: 'applies to check rules only' }]);
  });
});

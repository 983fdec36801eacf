import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/helpers/tmp.js';
import { ConfigError } from '../../shared/config/config-error.js';
import { loadBoardConfig } from './config.js';

const dir = tempDir();
afterAll(() => dir.cleanup());
let n = 0;

function configDir(yaml: string): string {
  n += 1;
  dir.write(`c${n}/board.yaml`, yaml);
  return `${dir.path}/c${n}`;
}

function problems(yaml: string, env: NodeJS.ProcessEnv = {}): string[] {
  try {
    loadBoardConfig(configDir(yaml), {}, env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((p) => `${p.field}: ${p.problem}`);
    throw error;
  }
  throw new Error('expected a ConfigError');
}

const TOKEN = 'board-token-0123456789';

describe('board config', () => {
  it('refuses labels that break the rule and groups whose selector does not parse, naming them', () => {
    const yaml = [
      `board_token: ${TOKEN}`,
      'machines:',
      '  - { name: web1, url: "http://127.0.0.1:1", key: key-key-key-key-key1, labels: { Env: prod } }',
      'groups:',
      '  - { name: Frankfurt, selector: "site=fra" }',
      '  - { name: Bad, selector: "site in fra" }',
      '  - { name: Frankfurt, selector: "site=fra" }',
    ].join('\n');
    expect(problems(yaml)).toEqual([
      'machines[0].labels: label "Env": a key is 1-63 of a-z 0-9 . _ / -, starting with a letter or digit',
      'groups[1].selector: selector: expected "(" to open the list of values at position 8',
      'groups[2].name: duplicate group name Frankfurt',
    ]);
  });

  it('applies the documented defaults', () => {
    const d = configDir(`board_token: ${TOKEN}\n`);
    const s = loadBoardConfig(d, {}, {});
    expect(s).toMatchObject({
      host: '127.0.0.1',
      port: 8700,
      registrationToken: null,
      sweepIntervalMs: 5000,
      pollTimeoutMs: 3000,
      staleAfterMs: 60000,
      maxAnnounced: 10000,
      maxAnnouncedBytes: 128 * 1024 * 1024,
      dataDir: `${d}/data`,
      machines: [],
      keepAliveMs: 75_000,
    });
  });

  it('reads keep_alive in seconds and refuses one that is not positive', () => {
    const s = loadBoardConfig(configDir(`board_token: ${TOKEN}\nkeep_alive: 120\n`), {}, {});
    expect(s.keepAliveMs).toBe(120_000);
    expect(problems(`board_token: ${TOKEN}\nkeep_alive: 0\n`)).toEqual(['keep_alive: must be > 0']);
  });

  it('reads machines, locations defaulting to url, and lets --host/--port win', () => {
    const d = configDir(
      `board_token: ${TOKEN}\nport: 9000\nsweep_interval: 0.5\nmachines:\n` +
        '  - {name: web1, url: "http://127.0.0.1:1/", key: key-key-key-key-key1}\n' +
        '  - {name: web2, url: "http://127.0.0.1:2", location: "https://web2.example/", key: key-key-key-key-key2}\n',
    );
    const s = loadBoardConfig(d, { port: 1234, host: '::1' }, {});
    expect(s.port).toBe(1234);
    expect(s.host).toBe('::1');
    expect(s.sweepIntervalMs).toBe(500);
    expect(s.machines).toEqual([
      {
        name: 'web1',
        url: 'http://127.0.0.1:1',
        location: 'http://127.0.0.1:1/',
        key: 'key-key-key-key-key1',
        ca: null,
      },
      {
        name: 'web2',
        url: 'http://127.0.0.1:2',
        location: 'https://web2.example/',
        key: 'key-key-key-key-key2',
        ca: null,
      },
    ]);
  });

  it('takes the tokens from PANOPTES_BOARD_TOKEN and PANOPTES_REGISTRATION_TOKEN', () => {
    const d = configDir('board_token: "${UNUSED_BUT_SET}"\n');
    const s = loadBoardConfig(
      d,
      {},
      {
        UNUSED_BUT_SET: 'x',
        PANOPTES_BOARD_TOKEN: 'from-env-board-token',
        PANOPTES_REGISTRATION_TOKEN: 'from-env-registration',
      },
    );
    expect(s.boardToken).toBe('from-env-board-token');
    expect(s.registrationToken).toBe('from-env-registration');
  });

  it('refuses short tokens and keys', () => {
    expect(
      problems(
        'board_token: short\nregistration_token: also-short\nmachines: [{name: a, url: "http://x", key: k}]\nannounced_keys: {lab3: tiny}\n',
      ),
    ).toEqual([
      'board_token: must be at least 16 characters long',
      'registration_token: must be at least 16 characters long',
      'machines[0].key: must be at least 16 characters long',
      'announced_keys.lab3: must be at least 16 characters long',
    ]);
  });

  it('requires the board token', () => {
    expect(problems('port: 1\n')).toEqual(['board_token: is required']);
  });

  it('refuses unknown keys, bad names, bad urls, non-positive intervals and duplicates', () => {
    expect(problems(`board_token: ${TOKEN}\nsweep_intervall: 5\n`)).toEqual([
      'sweep_intervall: unknown key',
    ]);
    expect(
      problems(
        `board_token: ${TOKEN}\nsweep_interval: 0\nmachines: [{name: "-bad", url: "ftp://x", key: ${TOKEN}}]\n`,
      ),
    ).toEqual([
      'sweep_interval: must be > 0',
      'machines[0].name: must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$',
      'machines[0].url: must be an absolute http:// or https:// URL',
    ]);
    expect(
      problems(
        `board_token: ${TOKEN}\nmachines:\n  - {name: a, url: "http://x", key: ${TOKEN}}\n  - {name: a, url: "http://y", key: ${TOKEN}}\nannounced_keys: {"a": ${TOKEN}, "bad name": ${TOKEN}}\n`,
      ),
    ).toEqual(['announced_keys.bad name: is not a valid name']);
  });

  it('refuses a duplicate machine name and an announced key for a configured machine', () => {
    expect(
      problems(
        `board_token: ${TOKEN}\nmachines:\n  - {name: a, url: "http://x", key: ${TOKEN}}\n  - {name: a, url: "http://y", key: ${TOKEN}}\nannounced_keys: {a: ${TOKEN}}\n`,
      ),
    ).toEqual([
      'machines[1].name: duplicate machine name a (names are compared without regard to case)',
      'announced_keys.a: names a configured machine; its key belongs in machines[]',
    ]);
  });

  it('reads trusted_proxies (IPv4, IPv6, CIDR) and refuses what is neither', () => {
    const d = configDir(
      `board_token: ${TOKEN}\ntrusted_proxies: [10.0.0.5, 10.0.0.0/8, "fd00::/8", "::1"]\n`,
    );
    expect(loadBoardConfig(d, {}, {}).trustedProxies).toEqual([
      '10.0.0.5',
      '10.0.0.0/8',
      'fd00::/8',
      '::1',
    ]);
    expect(loadBoardConfig(configDir(`board_token: ${TOKEN}\n`), {}, {}).trustedProxies).toEqual(
      [],
    );
    expect(
      problems(`board_token: ${TOKEN}\ntrusted_proxies: [10.0.0.0/33, proxy.example, 7]\n`),
    ).toEqual(['trusted_proxies[2]: must be string']);
    expect(
      problems(`board_token: ${TOKEN}\ntrusted_proxies: [10.0.0.0/33, proxy.example]\n`),
    ).toEqual([
      'trusted_proxies[0]: is not an IP address or CIDR range (e.g. 10.0.0.5, 10.0.0.0/8, fd00::/8)',
      'trusted_proxies[1]: is not an IP address or CIDR range (e.g. 10.0.0.5, 10.0.0.0/8, fd00::/8)',
    ]);
  });

  it('reads push: (a mailto: or https: subject) and refuses a webpush channel without it', () => {
    const webpush = 'notify:\n  channels: [{name: phone, url: "webpush://"}]\n';
    const on = loadBoardConfig(
      configDir(`board_token: ${TOKEN}\npush: {subject: "mailto:ops@example.org"}\n${webpush}`),
      {},
      {},
    );
    expect(on.push).toEqual({
      subject: 'mailto:ops@example.org',
      allowHttpEndpoints: false,
      allowPrivateEndpoints: false,
      maxSubscriptions: 1000,
    });
    expect(on.notify.channels.map((c) => c.parsed.kind)).toEqual(['webpush']);
    expect(loadBoardConfig(configDir(`board_token: ${TOKEN}\n`), {}, {}).push.subject).toBeNull();
    expect(problems(`board_token: ${TOKEN}\n${webpush}`)).toEqual([
      'notify.channels[0].url: webpush:// needs push.subject (a mailto: or https: contact) in board.yaml',
    ]);
    for (const subject of ['ops@example.org', 'http://board.example', 'mailto:', 'https://'])
      expect(problems(`board_token: ${TOKEN}\npush: {subject: "${subject}"}\n`), subject).toEqual([
        'push.subject: must be a mailto: address or an https: URL (a contact for the push services)',
      ]);
    const http = loadBoardConfig(
      configDir(
        `board_token: ${TOKEN}\npush: {subject: "https://board.example/contact", allow_http_endpoints: true, allow_private_endpoints: true, max_subscriptions: 5}\n`,
      ),
      {},
      {},
    );
    expect(http.push).toEqual({
      subject: 'https://board.example/contact',
      allowHttpEndpoints: true,
      allowPrivateEndpoints: true,
      maxSubscriptions: 5,
    });
  });

  it('names the file in the message', () => {
    const d = configDir('board_token: x\n');
    expect(() => loadBoardConfig(d, {}, {})).toThrow(`${d}/board.yaml`);
  });
});

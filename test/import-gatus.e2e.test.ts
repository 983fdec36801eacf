import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBoardConfig } from '../src/board/config/config.js';
import { tempDir } from './helpers/tmp.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FIXTURE = fileURLToPath(new URL('./fixtures/gatus/config.yaml', import.meta.url));
const dir = tempDir('panoptes-import-');
afterAll(() => dir.cleanup());

/** Runs a built program as a person would, keeping stdout and stderr apart. */
function run(program: 'start' | 'board', args: string[]) {
  const r = spawnSync(process.execPath, [`${ROOT}dist/${program}/main.js`, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 15_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('import gatus FILE', () => {
  let out: ReturnType<typeof run>;
  beforeAll(() => {
    out = run('start', ['import', 'gatus', FIXTURE]);
  });

  it('prints a checks: block that the board loads as it is', () => {
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^# Imported from a Gatus config\.yaml/);
    expect(out.stdout).toContain('runners.selector');
    dir.write('board/board.yaml', `board_token: board-token-0123456789\n${out.stdout}`);
    const settings = loadBoardConfig(`${dir.path}/board`, {}, {});
    const byName = new Map(settings.checks.map((c) => [c.name, c]));
    expect([...byName.keys()]).toEqual([
      'Front-Page',
      'api-health',
      'example-dns-query',
      'icmp-ping',
      'database',
      'ldaps',
      'Front-Page-2',
    ]);
    const front = byName.get('Front-Page');
    expect(front).toMatchObject({
      type: 'http',
      target: 'https://www.example.org/',
      intervalMs: 300_000,
      labels: { group: 'core-services' },
      runners: { board: true, selector: null },
    });
    expect(front?.conditions.map((c) => c.text)).toEqual([
      '[STATUS] == 200',
      '[BODY] == pat(*<h1>Example*)',
      '[CERTIFICATE_EXPIRATION] > 48h',
    ]);
    expect(byName.get('api-health')).toMatchObject({
      intervalMs: 90_000,
      timeoutMs: 5000,
      handed: {
        http: {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: '{"probe": true}',
          follow_redirects: false,
          verify_tls: false,
        },
      },
    });
    expect(byName.get('api-health')?.conditions).toHaveLength(4);
    expect(byName.get('example-dns-query')).toMatchObject({
      type: 'dns',
      target: 'example.com',
      handed: { dns: { record: 'A', resolver: '8.8.8.8' } },
    });
    expect(byName.get('icmp-ping')).toMatchObject({ type: 'icmp', target: 'example.org' });
    expect(byName.get('database')).toMatchObject({ type: 'tcp', target: 'db.example.org:5432' });
    expect(byName.get('ldaps')).toMatchObject({ type: 'tls', target: 'ldap.example.org:636' });
  });

  it('lists on stderr each thing it cannot map, and never a secret it read', () => {
    const lines = out.stderr.trim().split('\n');
    for (const expected of [
      'panoptes: not mapped: alerting: not imported (notify rules do this)',
      'panoptes: not mapped: ui: not imported',
      'panoptes: not mapped: external-endpoints: not imported (a `type: push` check is the counterpart)',
      'panoptes: not mapped: endpoints[0] "Front Page": conditions[3] "[DOMAIN_EXPIRATION] > 720h": unsupported placeholder [DOMAIN_EXPIRATION] at position 1',
      'panoptes: not mapped: endpoints[0] "Front Page": alerts',
      'panoptes: not mapped: endpoints[1] "api-health": ui',
      'panoptes: not mapped: endpoints[6] "bastion": ssh endpoints are not supported',
      'panoptes: not mapped: endpoints[7] "live-feed": websocket endpoints are not supported',
      'panoptes: not mapped: endpoints[8] "old-thing": skipped (enabled: false)',
    ])
      expect(lines).toContain(expected);
    expect(lines.at(-1)).toBe('panoptes: 7 check(s) imported, 10 thing(s) not mapped');
    const both = out.stdout + out.stderr;
    expect(both).not.toContain('not-a-real-password');
    expect(both).not.toContain('hooks.example.invalid');
    expect(both).not.toContain('some-token-of-sufficient-length');
  });

  it('panoptes-board takes the same command; nothing to import is exit code 1; bad usage 2', () => {
    const board = run('board', ['import', 'gatus', FIXTURE]);
    expect(board.code).toBe(0);
    expect(board.stdout).toBe(out.stdout);
    const empty = dir.write('empty.yaml', 'endpoints: []\nui: {title: x}\n');
    const none = run('board', ['import', 'gatus', empty]);
    expect(none).toMatchObject({ code: 1, stdout: '' });
    expect(none.stderr).toContain('panoptes-board: 0 check(s) imported');
    const usage = run('start', ['import', 'kuma', FIXTURE]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('usage: import gatus FILE');
    const missing = run('start', ['import', 'gatus', `${dir.path}/nope.yaml`]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot read');
  });
});

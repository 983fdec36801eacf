import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { freePort } from '../harness/postgres.js';
import { type RunningProgram, startBoard } from '../harness/processes.js';
import { stringArray } from '../src/agent/ring/codex-toml.js';
import { eventually, REGISTRATION } from './helpers/agent-fixtures.js';
import { type CmdlineWatch, watchCmdlines } from './helpers/cmdline-watch.js';
import { CODEX, NOTIFICATION, run, STOP, seen } from './helpers/hook-runs.js';
import { paste, pasteBin } from './helpers/pasted.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const BOARD_TOKEN = 'hooks-e2e-board-token-5b2e9d'; // secret-scan: token

/**
 * The one-file agent rings by itself: a machine enrolled by the board's pasted command, then its
 * `hooks install claude|codex` into a home directory, and the hooks run as Claude Code and Codex
 * run them, with nothing in the environment.
 */
describe('the one-file agent: bell and hooks', () => {
  const dir = tempDir('panoptes-hooks-');
  const bin = join(dir.path, 'bin');
  const work = join(dir.path, 'machine');
  let board: RunningProgram;
  let agent: RunningProgram;
  let mjs: string;
  let config: { token: string; board_key: string; bell_token: string; port: number };
  let key: string;
  let watch: CmdlineWatch;

  /** The agent file run by node, with only `node`, `curl`, `rm` and `sha256sum` on PATH. */
  const agentFile = (args: string[], home: string, input?: string) =>
    run([join(bin, 'node'), mjs, ...args], { env: { PATH: bin, HOME: home }, cwd: home, input });
  const overview = async () => {
    const r = await fetch(`${agent.url}/api/overview`, {
      headers: { authorization: `Bearer ${config.token}` },
    });
    return (await r.json()) as { sessions: { session: string; why: string; text: string }[] };
  };
  const session = async (name: string) =>
    (await overview()).sessions.find((s) => s.session === name);
  const home = (name: string) => {
    const path = join(dir.path, name);
    mkdirSync(path);
    return path;
  };

  beforeAll(async () => {
    await pasteBin(bin);
    dir.write(
      'board/board.yaml',
      stringify({
        board_token: BOARD_TOKEN,
        registration_token: REGISTRATION,
        sweep_interval: 0.5,
      }),
    );
    board = await startBoard(join(dir.path, 'board'));
    const r = await fetch(`${board.url}/api/machines/dev1/enroll`, {
      method: 'POST',
      headers: { authorization: `Bearer ${BOARD_TOKEN}` },
    });
    const enrolled = (await r.json()) as { command: string; key: string };
    key = enrolled.key;
    agent = await paste(`${enrolled.command} --port ${await freePort()} --interval 1`, bin, work);
    mjs = join(work, 'panoptes-agent.mjs');
    config = parse(readFileSync(join(work, 'panoptes-agent.yaml'), 'utf8')) as typeof config;
    // This machine's own secrets (the registration token is the fixtures', which other test
    // files on this machine use too), watched in every process's arguments from here on.
    watch = await watchCmdlines([config.bell_token, config.token, key]);
  }, 60_000);

  afterAll(async () => {
    await agent?.stop();
    await board?.stop();
    dir.cleanup();
  });

  it('the enroll wrote a bell token of its own into the config (0600)', () => {
    expect(statSync(join(work, 'panoptes-agent.yaml')).mode & 0o777).toBe(0o600);
    expect(config.bell_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(new Set([config.bell_token, config.token, config.board_key]).size).toBe(3);
  });

  it('answers --help on every subcommand, and an unknown one in one line, never a stack trace', async () => {
    const h = home('home-help');
    const bell = await agentFile(['bell', '--help'], h);
    expect(bell).toMatchObject({ code: 0, stderr: '' });
    expect(bell.stdout).toMatch(/^usage: node panoptes-agent\.mjs bell /);
    expect(bell.stdout).toContain('--codex');
    for (const args of [
      ['hooks', '--help'],
      ['hooks', 'install', 'claude', '--help'],
      ['--help'],
    ]) {
      const r = await agentFile(args, h);
      expect(r, args.join(' ')).toMatchObject({ code: 0, stderr: '' });
      expect(r.stdout, args.join(' ')).toMatch(/hooks install/);
    }
    const wrong: [string[], number, RegExp][] = [
      [['frobnicate'], 2, /^panoptes-agent: unknown command "frobnicate"/],
      [
        ['hooks', 'install', 'vim'],
        2,
        /^panoptes-agent: hooks install: claude or codex, not "vim"/,
      ],
      [['hooks', 'remove', 'claude'], 2, /^panoptes-agent: hooks: install or uninstall/],
      [['hooks', 'install', 'claude', '--frob'], 2, /^panoptes-agent: Unknown option '--frob'$/],
      [['--frob'], 2, /^panoptes-agent: Unknown option '--frob'/],
      // The bell exits 1 even for a bad argument: 2 would make a Claude Code Stop hook block.
      [['bell', '--frob'], 1, /^panoptes-agent bell: Unknown option '--frob'$/],
      [['bell', '--token', 'x'.repeat(20)], 1, /PANOPTES_BELL_TOKEN/],
    ];
    for (const [args, code, message] of wrong) {
      const r = await agentFile(args, h);
      expect(r.code, args.join(' ')).toBe(code);
      expect(r.stdout, args.join(' ')).toBe('');
      expect(r.stderr.trimEnd(), args.join(' ')).toMatch(message);
      expect(r.stderr.trimEnd().split('\n'), args.join(' ')).toHaveLength(1);
    }
  });

  it('the bell token opens POST /api/bell and nothing else', async () => {
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${agent.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${config.bell_token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? null : JSON.stringify(body),
      });
    const rang = await call('POST', '/api/bell', { session: 'curl', why: 'attention', text: 'hi' });
    expect(rang.status).toBe(200);
    for (const [method, path] of [
      ['GET', '/api/overview'],
      ['POST', '/api/do/anything/start'],
      ['GET', '/api/openapi.json'],
    ] as const) {
      const r = await call(method, path);
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(((await r.json()) as { detail: string }).detail).toBe(
        'The bell token only opens POST /api/bell',
      );
    }
    const query = await fetch(`${agent.url}/api/overview?token=${config.bell_token}`);
    expect(query.status).toBe(403);
  });

  it('hooks install claude: merged into settings.json with a backup, idempotent; the hooks ring as Claude Code runs them', async () => {
    const h = home('home-claude');
    const original = {
      model: 'opus',
      env: { EDITOR: 'vim' },
      hooks: {
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'audit.sh' }] }],
        Notification: [{ matcher: '', hooks: [{ type: 'command', command: 'notify-send hi' }] }],
      },
    };
    const originalText = `${JSON.stringify(original, null, 4)}\n`;
    const settingsFile = join(h, '.claude', 'settings.json');
    mkdirSync(join(h, '.claude'));
    writeFileSync(settingsFile, originalText, { mode: 0o644 });

    const first = await agentFile(['hooks', 'install', 'claude'], h);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const settings = JSON.parse(readFileSync(settingsFile, 'utf8'));
    const notification = settings.hooks.Notification[1].hooks[0].command as string;
    const stop = settings.hooks.Stop[0].hooks[0].command as string;
    expect(settings).toEqual({
      ...original,
      hooks: {
        ...original.hooks,
        Notification: [
          ...original.hooks.Notification,
          { matcher: '', hooks: [{ type: 'command', command: notification }] },
        ],
        Stop: [{ hooks: [{ type: 'command', command: stop }] }],
      },
    });
    const bellFile = join(h, '.config', 'panoptes', 'bell.json');
    // Absolute paths: this node (symlinks resolved), this file, the user's bell file.
    expect(notification).toBe(`${process.execPath} ${mjs} bell --hook --bell-file ${bellFile}`);
    expect(stop).toBe(notification);
    expect(statSync(settingsFile).mode & 0o777).toBe(0o644);
    const backups = readdirSync(join(h, '.claude')).filter((f) =>
      f.startsWith('settings.json.bak-'),
    );
    expect(backups).toHaveLength(1);
    expect(readFileSync(join(h, '.claude', backups[0] as string), 'utf8')).toBe(originalText);
    // The bell token is in the user's own file, 0600 in a 0700 directory; no hook holds a secret.
    expect(JSON.parse(readFileSync(bellFile, 'utf8'))).toEqual({
      url: agent.url,
      bell_token: config.bell_token,
    });
    expect(statSync(bellFile).mode & 0o777).toBe(0o600);
    expect(statSync(join(h, '.config', 'panoptes')).mode & 0o777).toBe(0o700);
    for (const secret of [config.bell_token, config.token, key, REGISTRATION]) {
      expect(readFileSync(settingsFile, 'utf8')).not.toContain(secret);
    }

    const again = await agentFile(['hooks', 'install', 'claude'], h);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('already');
    expect(JSON.parse(readFileSync(settingsFile, 'utf8'))).toEqual(settings);
    expect(readdirSync(join(h, '.claude')).filter((f) => f.includes('.bak-'))).toHaveLength(1);

    // As Claude Code runs a hook: the command with sh -c, the payload on stdin, no PANOPTES_*.
    const hookEnv = { PATH: bin, HOME: h };
    const rang = await run(['/bin/sh', '-c', notification], {
      env: hookEnv,
      cwd: h,
      input: JSON.stringify(NOTIFICATION),
    });
    expect(rang).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await session('webshop 5f3a9c2e')).toMatchObject({
      why: 'attention',
      text: 'Claude needs your permission to use Bash',
    });
    const stopped = await run(['/bin/sh', '-c', stop], {
      env: hookEnv,
      cwd: h,
      input: JSON.stringify(STOP),
    });
    expect(stopped.code).toBe(0);
    expect(await session('webshop 5f3a9c2e')).toMatchObject({ why: 'finished', text: 'finished' });
    // And on to the board, in the machine's next report.
    await eventually(async () => {
      const r = await fetch(`${board.url}/api/board`, {
        headers: { authorization: `Bearer ${BOARD_TOKEN}` },
      });
      const text = await r.text();
      return text.includes('webshop 5f3a9c2e') ? true : undefined;
    }, 'the session on the board');

    const removed = await agentFile(['hooks', 'uninstall', 'claude'], h);
    expect(removed.code).toBe(0);
    expect(JSON.parse(readFileSync(settingsFile, 'utf8'))).toEqual(original);
  });

  it('hooks install claude into a home with no settings makes them (0600 in a 0700 directory)', async () => {
    const h = home('home-empty');
    expect((await agentFile(['hooks', 'install', 'claude'], h)).code).toBe(0);
    expect(statSync(join(h, '.claude')).mode & 0o777).toBe(0o700);
    expect(statSync(join(h, '.claude', 'settings.json')).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(h, '.claude'))).toEqual(['settings.json']);
  });

  it('hooks install refuses a symbolic link where it writes a file, naming it; what it points to is unchanged', async () => {
    // The bell file: a link planted at ~/.config/panoptes/bell.json.
    const h = home('home-linked-bell');
    const victim = join(dir.path, 'victim-bell');
    writeFileSync(victim, 'not a bell file\n', { mode: 0o644 });
    mkdirSync(join(h, '.config', 'panoptes'), { recursive: true });
    const bellFile = join(h, '.config', 'panoptes', 'bell.json');
    symlinkSync(victim, bellFile);
    const r = await agentFile(['hooks', 'install', 'claude'], h);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${bellFile} is a symbolic link`);
    expect(readFileSync(victim, 'utf8')).toBe('not a bell file\n');
    expect(statSync(victim).mode & 0o777).toBe(0o644);
    expect(lstatSync(bellFile).isSymbolicLink()).toBe(true);
    expect(readdirSync(join(h, '.config', 'panoptes'))).toEqual(['bell.json']);

    // Claude's settings: a link there is refused too (no backup of, nor write into, its target).
    const h2 = home('home-linked-settings');
    const settings = join(dir.path, 'victim-settings.json');
    writeFileSync(settings, '{"model": "opus"}\n', { mode: 0o644 });
    mkdirSync(join(h2, '.claude'));
    const settingsFile = join(h2, '.claude', 'settings.json');
    symlinkSync(settings, settingsFile);
    const s = await agentFile(['hooks', 'install', 'claude'], h2);
    expect(s.code).toBe(1);
    expect(s.stderr).toContain(`${settingsFile} is a symbolic link`);
    expect(readFileSync(settings, 'utf8')).toBe('{"model": "opus"}\n');
    expect(statSync(settings).mode & 0o777).toBe(0o644);
    expect(readdirSync(join(h2, '.claude'))).toEqual(['settings.json']);
    // Refused before anything was written: no bell file either.
    expect(readdirSync(h2)).toEqual(['.claude']);
  });

  it('hooks install codex: a top-level notify before the first table, idempotent; it rings as Codex runs it', async () => {
    const h = home('home-codex');
    const original = [
      '# Codex',
      'model = "o3"',
      'approval_policy = "on-request"',
      '',
      '[projects."/home/dev/panoptes"]',
      'trust_level = "trusted"',
      '',
    ].join('\n');
    const file = join(h, '.codex', 'config.toml');
    mkdirSync(join(h, '.codex'));
    writeFileSync(file, original);
    const first = await agentFile(['hooks', 'install', 'codex'], h);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const text = readFileSync(file, 'utf8');
    const bellFile = join(h, '.config', 'panoptes', 'bell.json');
    const argv = [process.execPath, mjs, 'bell', '--bell-file', bellFile, '--codex'];
    const line = `notify = [${argv.map((a) => JSON.stringify(a)).join(', ')}]`;
    expect(text).toBe(original.replace('\n\n[projects', `\n${line}\n\n[projects`));
    expect(stringArray(line.slice('notify = '.length))).toEqual(argv);
    expect(text).not.toContain(config.bell_token);
    const again = await agentFile(['hooks', 'install', 'codex'], h);
    expect(again.code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(readdirSync(join(h, '.codex')).filter((f) => f.includes('.bak-'))).toHaveLength(1);

    // As Codex runs notify: the argv, and the payload as one more argument, no shell.
    const rang = await run([...argv, JSON.stringify(CODEX)], {
      env: { PATH: bin, HOME: h },
      cwd: h,
    });
    expect(rang).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await session('panoptes 2a035a53')).toMatchObject({
      why: 'finished',
      text: 'Renamed it; the tests pass.',
    });

    const removed = await agentFile(['hooks', 'uninstall', 'codex'], h);
    expect(removed.code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(original);
  });

  it("hooks install codex refuses another program's notify without --force", async () => {
    const h = home('home-codex-other');
    const original = 'notify = ["notify-send", "Codex"]\nmodel = "o3"\n';
    const file = join(h, '.codex', 'config.toml');
    mkdirSync(join(h, '.codex'));
    writeFileSync(file, original);
    const refused = await agentFile(['hooks', 'install', 'codex'], h);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/another program's: --force replaces it/);
    expect(refused.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(readFileSync(file, 'utf8')).toBe(original);
    expect(readdirSync(join(h, '.codex'))).toEqual(['config.toml']);
    const forced = await agentFile(['hooks', 'install', 'codex', '--force'], h);
    expect(forced.code).toBe(0);
    expect(readFileSync(file, 'utf8')).toMatch(
      /^notify = \[".*", "bell", "--bell-file", ".*", "--codex"\]\nmodel = "o3"\n$/,
    );
    const backup = readdirSync(join(h, '.codex')).find((f) => f.includes('.bak-'));
    expect(readFileSync(join(h, '.codex', backup as string), 'utf8')).toBe(original);
  });

  it("another user's agent: the bell token from the environment, never an argument; bell --config reads the agent's config", async () => {
    // The agent file where no config is beside it (a user's own copy).
    const h = home('home-other-user');
    const copy = join(h, 'panoptes-agent.mjs');
    writeFileSync(copy, readFileSync(mjs));
    const other = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
      run([process.execPath, copy, ...args], { env: { PATH: bin, HOME: h, ...extra }, cwd: h });
    const lost = await other(['hooks', 'install', 'claude']);
    expect(lost.code).toBe(1);
    expect(lost.stderr).toMatch(/^panoptes-agent: no agent config at .*PANOPTES_BELL_TOKEN/);
    expect(lost.stderr.trimEnd().split('\n')).toHaveLength(1);
    const installed = await other(['hooks', 'install', 'claude', '--url', agent.url], {
      PANOPTES_BELL_TOKEN: config.bell_token,
    });
    expect(installed.stderr).toBe('');
    expect(installed.code).toBe(0);
    const settings = JSON.parse(readFileSync(join(h, '.claude', 'settings.json'), 'utf8'));
    const command = settings.hooks.Notification[0].hooks[0].command as string;
    expect(command).not.toContain(config.bell_token);
    const rang = await run(['/bin/sh', '-c', command], {
      env: { PATH: bin, HOME: h },
      cwd: h,
      input: JSON.stringify({ ...NOTIFICATION, session_id: 'a1b2c3d4-e5f6', cwd: '/srv/shop' }),
    });
    expect(rang).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await session('shop a1b2c3d4')).toMatchObject({ why: 'attention' });

    const direct = await agentFile(
      ['bell', '--config', join(work, 'panoptes-agent.yaml'), '--session', 'by-config'],
      h,
    );
    expect(direct).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await session('by-config')).toMatchObject({ why: 'finished' });
  });

  it('no secret was in any process’s arguments (what ps shows every user)', async () => {
    const { hits, scans } = await watch.stop();
    expect(scans).toBeGreaterThan(10);
    expect(hits).toEqual([]);
  });

  // Nothing the bell, the hooks command, the agent or the board said holds a secret, nor any file
  // in the homes but the user's bell file (the bell token alone, by design) and the agent's data.
  scanForSecretsAfterAll(() => ({
    secrets: [config.bell_token, config.token, key, REGISTRATION, BOARD_TOKEN],
    texts: seen,
    // The enroll answer holds the key and the registration token, by design.
    allowText: (text) => text.startsWith('{"name":"dev1","key":'),
    dirs: readdirSync(dir.path)
      .filter((d) => d.startsWith('home-'))
      .map((d) => join(dir.path, d))
      .concat(join(work, 'panoptes-agent-data')),
    skipFile: (path) => path.endsWith('/.config/panoptes/bell.json'),
  }));
});

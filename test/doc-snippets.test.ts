import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startAgent, startBoard } from '../harness/processes.js';
import { BOARD_KEY, OPERATOR, REGISTRATION } from './helpers/agent-fixtures.js';
import { eventually, Recorder, writeAgentConfig, writeBoardConfig } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BOARD_TOKEN = 'doc-snippets-board-token-7c1e9a3f5b'; // secret-scan: token
const BELL_TOKEN = 'doc-snippets-bell-token-2d8f4b6a1c'; // secret-scan: token

/** A fenced block of a doc marked runnable: its info string is `sh test` (see CONTRIBUTING.md). */
interface Snippet {
  file: string;
  line: number;
  code: string;
  /** HTTP statuses of 400 and over that the block expects (`sh test 403 422`). */
  allowed: Set<number>;
}

const FENCE = /^```sh test((?: \d{3})*)\s*$/;

/** The runnable blocks of README.md and docs/*.md, in the order they are read. */
function runnableSnippets(): Snippet[] {
  const files = [
    'README.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .sort()
      .map((f) => `docs/${f}`),
  ];
  const found: Snippet[] = [];
  for (const file of files) {
    const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      const open = FENCE.exec(lines[i] ?? '');
      if (open === null) continue;
      const end = lines.findIndex((l, j) => j > i && /^```\s*$/.test(l));
      if (end < 0) throw new Error(`${file}:${i + 1}: the block is not closed`);
      const allowed = new Set((open[1] ?? '').trim().split(/\s+/).filter(Boolean).map(Number));
      found.push({ file, line: i + 1, code: lines.slice(i + 1, end).join('\n'), allowed });
      i = end;
    }
  }
  return found;
}

/** What a Claude Code hook hands its command on stdin (the bell snippets read it). */
const HOOK_PAYLOAD = JSON.stringify({
  session_id: '5f3a9c2e-0d4b-4e4c-9a57-0c3b2f1d9e8a',
  cwd: '/home/dev/webshop',
  hook_event_name: 'Notification',
  message: 'needs a decision',
});

const snippets = runnableSnippets();

/**
 * The shell snippets the docs mark runnable, run with bash as a reader would paste them, against
 * a real board and agent: `$B`, `$T`, `$R` (the board, its token, the registration token) and
 * `PANOPTES_AGENT_URL`, `PANOPTES_AGENT_TOKEN`, `PANOPTES_BELL_TOKEN` (the agent of `web1`). A
 * block passes when it exits 0 under `set -euo pipefail` and every HTTP answer curl got is below
 * 400 or one its marker names.
 */
describe('doc snippets marked `sh test`', () => {
  const dir = tempDir('panoptes-doc-snippets-');
  const http = new Recorder();
  const started: RunningProgram[] = [];
  let env: NodeJS.ProcessEnv = {};
  let hook: Server;
  const statusFile = join(dir.path, 'curl-statuses');
  /** The working directory of a doc's blocks (one per doc: its blocks run in order in it). */
  const snippetDir = (file: string): string => {
    const cwd = join(dir.path, 'work', file.replace(/[/.]/g, '-'));
    mkdirSync(cwd, { recursive: true });
    return cwd;
  };

  beforeAll(async () => {
    // A webhook the notification channel `ops` delivers to.
    hook = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.end('ok'));
    });
    hook.listen(0, '127.0.0.1');
    await once(hook, 'listening');
    const hookPort = (hook.address() as AddressInfo).port;

    const agent = await startAgent(
      writeAgentConfig(dir, 'web1', {
        name: 'web1',
        token: OPERATOR,
        board_key: BOARD_KEY,
        bell_token: BELL_TOKEN,
        data_dir: `${dir.path}/web1-data`,
        services: { backup: { start: ['true'], stop: ['true'], board: ['start'] } },
      }),
    );
    started.push(agent);
    const board = await startBoard(
      writeBoardConfig(dir, 'board', {
        board_token: BOARD_TOKEN,
        registration_token: REGISTRATION,
        sweep_interval: 0.5,
        machines: [{ name: 'web1', url: agent.url, key: BOARD_KEY }],
        notify: { channels: [{ name: 'ops', url: `http://127.0.0.1:${hookPort}/hook` }] },
        push: { subject: 'mailto:ops@example.org' },
      }),
    );
    started.push(board);
    await eventually(async () => {
      const view = (await http.call(`${board.url}/api/board`, { token: BOARD_TOKEN })).json as {
        machines: { name: string; state: string }[];
      };
      return view.machines.some((m) => m.name === 'web1' && m.state === 'up') ? true : undefined;
    }, 'web1 up');
    // lab3, the announced machine of the examples, has reported once.
    const report = await http.call(`${board.url}/api/report`, {
      method: 'POST',
      token: REGISTRATION,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'lab3', location: 'http://lab3:8701', hostname: 'lab3' }),
    });
    expect(report.status).toBe(200);

    // curl as the snippets call it, each HTTP status noted in a file for the test.
    const realCurl = spawnSync('sh', ['-c', 'command -v curl'], { encoding: 'utf8' }).stdout.trim();
    expect(realCurl).not.toBe('');
    const shims = join(dir.path, 'bin');
    mkdirSync(shims);
    writeFileSync(
      join(shims, 'curl'),
      `#!/bin/sh\nexec ${realCurl} --write-out '%{stderr}%{http_code}\\n' "$@" 2>>"${statusFile}"\n`,
    );
    chmodSync(join(shims, 'curl'), 0o755);
    env = {
      PATH: `${shims}:${ROOT}node_modules/.bin:${process.env.PATH ?? '/usr/bin:/bin'}`,
      HOME: dir.path,
      LANG: 'C.UTF-8',
      B: board.url,
      T: BOARD_TOKEN,
      R: REGISTRATION,
      PANOPTES_AGENT_URL: agent.url,
      PANOPTES_AGENT_TOKEN: OPERATOR,
      PANOPTES_BELL_TOKEN: BELL_TOKEN,
      npm_config_update_notifier: 'false',
    };
    // docs/ai-agents.md runs where an enroll left the agent: its file and its config beside it.
    const machine = snippetDir('docs/ai-agents.md');
    copyFileSync(
      join(ROOT, 'dist/agent-file/panoptes-agent.mjs'),
      join(machine, 'panoptes-agent.mjs'),
    );
    writeAgentConfig(dir, 'work/docs-ai-agents-md/panoptes-agent', {
      name: 'web1',
      host: '127.0.0.1',
      port: Number(new URL(agent.url).port),
      token: OPERATOR,
      board_key: BOARD_KEY,
      bell_token: BELL_TOKEN,
    });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(started.map((p) => p.stop()));
    hook?.close();
    dir.cleanup();
  });

  it('finds the runnable blocks (the marker is spelled right)', () => {
    const files = new Set(snippets.map((s) => s.file));
    expect([...files].sort()).toEqual(
      expect.arrayContaining(['docs/agent.md', 'docs/api.md', 'docs/operations.md']),
    );
    expect(snippets.length).toBeGreaterThan(15);
  });

  for (const snippet of snippets) {
    it(`${snippet.file}:${snippet.line}`, async () => {
      const cwd = snippetDir(snippet.file);
      rmSync(statusFile, { force: true });
      const child = spawn('bash', ['-euo', 'pipefail', '-c', snippet.code], { cwd, env });
      let output = '';
      child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
      child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
      // A block that reads no stdin may be gone before the payload is written (EPIPE).
      child.stdin.on('error', () => undefined);
      child.stdin.end(HOOK_PAYLOAD);
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      const [code] = (await once(child, 'close')) as [number | null];
      clearTimeout(timer);
      let curl: string[] = [];
      try {
        curl = readFileSync(statusFile, 'utf8').split('\n').filter(Boolean);
      } catch {
        // no curl in this block
      }
      const context = `${snippet.file}:${snippet.line}\n${output}\ncurl: ${curl.join(' ')}`;
      expect(code, context).toBe(0);
      for (const line of curl) {
        const status = /^\d{3}$/.test(line) ? Number(line) : Number.NaN;
        const fine = status >= 100 && (status < 400 || snippet.allowed.has(status));
        expect(fine, `curl answered ${line}: ${context}`).toBe(true);
      }
    }, 90_000);
  }

  it('the bell snippet rang: the agent shows the hook session', async () => {
    const overview = (
      await http.call(`${env.PANOPTES_AGENT_URL}/api/overview`, { token: OPERATOR })
    ).json as { sessions: { session: string; why: string }[] };
    expect(overview.sessions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ session: 'webshop 5f3a9c2e', why: 'attention' }),
      ]),
    );
  });

  scanForSecretsAfterAll(() => ({
    secrets: [BOARD_TOKEN, OPERATOR, BOARD_KEY, BELL_TOKEN, REGISTRATION],
    // What the board and the agent wrote (the snippets' own tools, npx's log, are the reader's).
    dirs: [`${dir.path}/board`, `${dir.path}/web1-data`],
    // The enroll example's answer holds the new key and the registration token, by design.
    allowText: (text) => text.startsWith('{"name":"lab7","key":'),
  }));
});

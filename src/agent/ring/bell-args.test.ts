import { describe, expect, it } from 'vitest';
import { Value } from '../../shared/typebox.js';
import { Bell } from '../../shared/wire/overview.js';
import { bellOf, parseBellArgs, shortId } from './bell-args.js';

const NOTIFICATION = {
  session_id: '1a2b3c4d-5e6f-4081-92a3-b4c5d6e7f809',
  transcript_path: '/home/me/.claude/projects/x.jsonl',
  cwd: '/home/me/webshop',
  hook_event_name: 'Notification',
  message: 'Claude needs your permission to use Bash',
};
const STOP = {
  session_id: NOTIFICATION.session_id,
  transcript_path: NOTIFICATION.transcript_path,
  cwd: NOTIFICATION.cwd,
  hook_event_name: 'Stop',
  stop_hook_active: false,
};
/** What Codex hands its notify program as the last argument (its thread ids are UUID v7). */
const CODEX = {
  type: 'agent-turn-complete',
  'thread-id': '0199a213-81c0-7800-8aa1-bbab2a035a53',
  'turn-id': '12345',
  cwd: '/home/me/panoptes',
  'input-messages': ['Rename the bell flag'],
  'last-assistant-message': '  Renamed it and ran the tests: all green.\n',
};

const ring = (argv: string[], payload: unknown = null, env: NodeJS.ProcessEnv = {}) =>
  bellOf(parseBellArgs(argv), env, '/home/me/project', payload);

describe('the bell: what it rings', () => {
  it('defaults: the directory as session, finished', () => {
    expect(ring([])).toEqual({ session: 'project', why: 'finished', text: 'finished' });
  });

  it('flags win over the environment, which wins over the payload', () => {
    expect(ring(['--session', 's', '--why', 'error', '--text', 'boom'])).toEqual({
      session: 's',
      why: 'error',
      text: 'boom',
    });
    expect(ring(['--hook'], NOTIFICATION, { PANOPTES_SESSION: 'env' })?.session).toBe('env');
  });

  it('a Claude Code Notification is attention with its message, Stop is finished', () => {
    expect(ring(['--hook'], NOTIFICATION)).toEqual({
      session: 'webshop 1a2b3c4d',
      why: 'attention',
      text: 'Claude needs your permission to use Bash',
    });
    expect(ring(['--hook'], STOP)).toEqual({
      session: 'webshop 1a2b3c4d',
      why: 'finished',
      text: 'finished',
    });
  });

  it("Codex's agent-turn-complete is finished with the last answer; other notifications ring nothing", () => {
    expect(ring(['--codex', JSON.stringify(CODEX)])).toEqual({
      session: 'panoptes 2a035a53',
      why: 'finished',
      text: 'Renamed it and ran the tests: all green.',
    });
    const other = JSON.stringify({ ...CODEX, type: 'approval-requested' });
    expect(ring(['--codex', other])).toBeNull();
    const long = JSON.stringify({ ...CODEX, 'last-assistant-message': 'x'.repeat(5000) });
    const text = ring(['--codex', long])?.text ?? '';
    expect([...text]).toHaveLength(4000);
    expect(text.endsWith('…')).toBe(true);
    const silent = JSON.stringify({ ...CODEX, 'last-assistant-message': null });
    expect(ring(['--codex', silent])?.text).toBe('finished');
  });

  it('a short id: the first 8 characters, the last 8 of a UUID v7 (which begins with the time)', () => {
    expect(shortId('1a2b3c4d-5e6f-4081-92a3-b4c5d6e7f809')).toBe('1a2b3c4d');
    expect(shortId('0199a213-81c0-7800-8aa1-bbab2a035a53')).toBe('2a035a53');
    expect(shortId('0199a213-9999-7fff-8aa1-000000000001')).toBe('00000001');
    expect(shortId('abc')).toBe('abc');
  });

  it('keeps to the Bell schema: one-line session of at most 200, no control characters', () => {
    const bell = ring(['--hook'], {
      ...NOTIFICATION,
      cwd: `/home/me/${'d'.repeat(300)}\u001b[31m`,
      message: 'line 1\r\nline 2\u0007',
    });
    expect([...(bell?.session ?? '')]).toHaveLength(200);
    expect(Value.Check(Bell, bell)).toBe(true);
    expect(bell?.text).toBe('line 1\nline 2\ufffd');
    expect(ring(['--session', 'a\nb'])?.session).toBe('a\ufffdb');
    expect(ring(['--text', 'é'.repeat(5000)])?.text).toHaveLength(4000);
  });

  it('refuses a bad why, a token as an argument, and what it does not know, in one line', () => {
    expect(() => ring(['--why', 'done'])).toThrow(/^--why must be/);
    expect(() => parseBellArgs(['--token', 'x'.repeat(20)])).toThrow(
      /^--token: pass the token in the environment as PANOPTES_BELL_TOKEN/,
    );
    expect(() => parseBellArgs(['--nope'])).toThrow(/Unknown option/);
    expect(() => parseBellArgs(['stray'])).toThrow(/^unexpected argument "stray"$/);
    expect(() => parseBellArgs(['--codex'])).toThrow(/last argument/);
    expect(() => parseBellArgs(['--codex', '{}', '--why', 'error'])).toThrow(/last argument/);
    expect(() => parseBellArgs(['--hook', '--codex', '{}'])).toThrow(/one or the other/);
    expect(() => ring(['--codex', 'not json'])).toThrow(/not Codex's notify JSON/);
    expect(parseBellArgs(['--help', 'whatever']).help).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { bellRequest, parseBellArgs } from './bell-args.js';

const ENV = { PANOPTES_AGENT_TOKEN: 'operator-token-0123456789' };

describe('panoptes-bell arguments', () => {
  it('defaults: the local agent, the directory as session, finished', () => {
    expect(bellRequest(parseBellArgs([]), ENV, '/home/me/project', null)).toEqual({
      url: 'http://127.0.0.1:8701',
      token: 'operator-token-0123456789',
      bell: { session: 'project', why: 'finished', text: 'finished' },
    });
  });

  it('flags win over the environment', () => {
    const args = parseBellArgs([
      '--url',
      'http://h:1/',
      '--session',
      's',
      '--why',
      'error',
      '--text',
      'boom',
    ]);
    const env = { ...ENV, PANOPTES_AGENT_URL: 'http://other:2', PANOPTES_SESSION: 'env' };
    expect(bellRequest(args, env, '/x', null)).toMatchObject({
      url: 'http://h:1',
      bell: { session: 's', why: 'error', text: 'boom' },
    });
    expect(bellRequest(parseBellArgs([]), env, '/x', null)).toMatchObject({
      url: 'http://other:2',
      bell: { session: 'env' },
    });
  });

  it('reads a Claude Code Notification and Stop payload', () => {
    const notification = {
      session_id: '1a2b3c4d-5e6f-7081-92a3-b4c5d6e7f809',
      transcript_path: '/home/me/.claude/projects/x.jsonl',
      cwd: '/home/me/webshop',
      hook_event_name: 'Notification',
      message: 'Claude needs your permission to use Bash',
    };
    expect(bellRequest(parseBellArgs(['--hook']), ENV, '/elsewhere', notification).bell).toEqual({
      session: 'webshop 1a2b3c4d',
      why: 'attention',
      text: 'Claude needs your permission to use Bash',
    });
    const stop = { ...notification, hook_event_name: 'Stop', message: undefined };
    expect(bellRequest(parseBellArgs(['--hook']), ENV, '/elsewhere', stop).bell).toEqual({
      session: 'webshop 1a2b3c4d',
      why: 'finished',
      text: 'finished',
    });
  });

  it('refuses a missing token and a bad why, and cuts an over-long text', () => {
    expect(() => bellRequest(parseBellArgs([]), {}, '/x', null)).toThrow(/PANOPTES_AGENT_TOKEN/);
    expect(() => bellRequest(parseBellArgs(['--why', 'done']), ENV, '/x', null)).toThrow(/--why/);
    const long = bellRequest(parseBellArgs(['--text', 'é'.repeat(5000)]), ENV, '/x', null);
    expect(long.bell.text).toHaveLength(4000);
    expect(() => parseBellArgs(['--nope'])).toThrow();
  });
});

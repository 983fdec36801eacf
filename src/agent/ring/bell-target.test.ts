import { chmodSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/helpers/tmp.js';
import { agentSettings } from '../config.js';
import {
  agentUrl,
  defaultBellFile,
  findBellTarget,
  readBellFile,
  writeBellFile,
} from './bell-target.js';

const dir = tempDir('panoptes-bell-target-');
afterAll(() => dir.cleanup());

const TOKEN = 'operator-token-0123456789';
const BELL = 'bell-token-0123456789abc';
const settings = (extra: Record<string, unknown>) =>
  agentSettings({ name: 'web1', token: TOKEN, ...extra }, join(dir.path, 'agent.yaml'));

describe('where the bell goes', () => {
  it("the agent's address from its host and port, as seen from its own machine", () => {
    expect(agentUrl(settings({}))).toBe('http://127.0.0.1:8701');
    expect(agentUrl(settings({ host: '0.0.0.0', port: 9000 }))).toBe('http://127.0.0.1:9000');
    expect(agentUrl(settings({ host: '::', port: 9000 }))).toBe('http://[::1]:9000');
    expect(agentUrl(settings({ host: '10.0.0.7', port: 9000 }))).toBe('http://10.0.0.7:9000');
    expect(() => agentUrl(settings({ port: 0 }))).toThrow(/port is 0 .*--url/);
  });

  it('finds it in the order the usage gives: flag, environment, bell file, the config beside', () => {
    const home = join(dir.path, 'home');
    const program = join(dir.path, 'program');
    const env = { HOME: home };
    const beside = dir.write(
      'program/panoptes-agent.yaml',
      `name: web1\ntoken: ${TOKEN}\nbell_token: ${BELL}\nport: 8702\n`,
    );
    expect(findBellTarget({}, env, '/', program)).toEqual({
      url: 'http://127.0.0.1:8702',
      token: BELL,
      from: beside,
    });
    const file = defaultBellFile(env);
    expect(file).toBe(join(home, '.config', 'panoptes', 'bell.json'));
    expect(
      writeBellFile(file, { url: 'http://127.0.0.1:9999', token: 'from-the-file-0123456' }),
    ).toBe(true);
    expect(findBellTarget({}, env, '/', program).token).toBe('from-the-file-0123456');
    const fromEnv = {
      ...env,
      PANOPTES_BELL_TOKEN: 'from-env-0123456789',
      PANOPTES_AGENT_URL: 'http://h:1',
    };
    expect(findBellTarget({}, fromEnv, '/', program)).toEqual({
      url: 'http://h:1',
      token: 'from-env-0123456789',
      from: 'the environment',
    });
    expect(findBellTarget({ config: beside }, fromEnv, '/', program).url).toBe(
      'http://127.0.0.1:8702',
    );
    expect(findBellTarget({ bellFile: file, url: 'http://x:2/' }, fromEnv, '/', program)).toEqual({
      url: 'http://x:2',
      token: 'from-the-file-0123456',
      from: file,
    });
    expect(() => findBellTarget({}, { HOME: join(dir.path, 'nobody') }, '/', '/nowhere')).toThrow(
      /^no bell token: .*PANOPTES_BELL_TOKEN/,
    );
    const bare = dir.write('bare.yaml', `name: web1\ntoken: ${TOKEN}\n`);
    expect(() => findBellTarget({ config: bare }, {}, '/', program)).toThrow(
      /has no bell_token: enroll again/,
    );
  });

  it('the bell file: 0600, no backup of an old token, refused when it is not one', () => {
    const file = join(dir.path, 'x', 'panoptes', 'bell.json');
    expect(writeBellFile(file, { url: 'http://a:1', token: BELL })).toBe(true);
    expect(writeBellFile(file, { url: 'http://a:1', token: BELL })).toBe(false);
    chmodSync(file, 0o644);
    expect(writeBellFile(file, { url: 'http://a:1', token: `${BELL}-new` })).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir.path, 'x', 'panoptes')).mode & 0o777).toBe(0o700);
    expect(readdirSync(join(dir.path, 'x', 'panoptes'))).toEqual(['bell.json']);
    expect(readBellFile(file)).toEqual({ url: 'http://a:1', token: `${BELL}-new`, from: file });
    writeFileSync(file, '{"url": "ftp://a", "bell_token": "x"}');
    expect(() => readBellFile(file)).toThrow(/"url" is not an http\(s\) URL/);
    writeFileSync(file, '{"url": "http://a", "bell_token": "short"}');
    expect(() => readBellFile(file)).toThrow(/"bell_token" is not a token/);
  });
});

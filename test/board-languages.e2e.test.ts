import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startBoard } from '../harness/processes.js';
import { Recorder, writeBoardConfig } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'lang-board-token-0123456789';

describe('language catalogues', () => {
  const dir = tempDir();
  const http = new Recorder();
  let board: RunningProgram;
  let configDir: string;
  const get = (path: string) => http.call(`${board.url}${path}`, { token: TOKEN });

  beforeAll(async () => {
    configDir = writeBoardConfig(dir, 'b', { board_token: TOKEN });
    dir.write(
      'b/lang/de.json',
      JSON.stringify({ code: 'de', name: 'Deutsch (lokal)', messages: { 'app.title': 'Tafel' } }),
    );
    dir.write('b/lang/broken.json', '{not json');
    board = await startBoard(configDir);
  });
  afterAll(async () => {
    await board?.stop();
    dir.cleanup();
  });

  it('lists the built-in languages, with config files overriding by code', async () => {
    const list = (await get('/api/languages')).json as {
      code: string;
      name: string;
      source: string;
    }[];
    const byCode = new Map(list.map((l) => [l.code, l]));
    for (const code of ['en', 'fr', 'es', 'ja']) expect(byCode.get(code)?.source).toBe('builtin');
    expect(byCode.get('de')).toEqual({ code: 'de', name: 'Deutsch (lokal)', source: 'config' });
    expect(byCode.has('broken')).toBe(false);
    const en = (await get('/api/language/en')).json as {
      code: string;
      messages: Record<string, string>;
    };
    expect(en.code).toBe('en');
    expect(Object.keys(en.messages).length).toBeGreaterThan(10);
    expect((await get('/api/language/de')).json).toMatchObject({
      name: 'Deutsch (lokal)',
      messages: { 'app.title': 'Tafel' },
    });
  });

  it('picks up a language dropped in while running, and a change to it', async () => {
    expect((await get('/api/language/eo')).status).toBe(404);
    dir.write(
      'b/lang/eo.json',
      JSON.stringify({ code: 'eo', name: 'Esperanto', messages: { 'app.title': 'Panoptes' } }),
    );
    expect((await get('/api/language/eo')).json).toMatchObject({ code: 'eo', name: 'Esperanto' });
    const list = (await get('/api/languages')).json as { code: string }[];
    expect(list.map((l) => l.code)).toContain('eo');
    dir.write('b/lang/eo.json', JSON.stringify({ code: 'eo', name: 'Esperanto 2', messages: {} }));
    expect((await get('/api/language/eo')).json).toMatchObject({ name: 'Esperanto 2' });
  });

  it('cannot be made to read outside the catalogue directories', async () => {
    dir.write('secret.json', JSON.stringify({ code: 'x', name: 'secret', messages: {} }));
    for (const path of ['..%2F..%2Fsecret', '..%2Fsecret', '%2E%2E', 'en%00', 'en.json', 'EN']) {
      const r = await get(`/api/language/${path}`);
      expect([404, 422], path).toContain(r.status);
      expect(r.text).not.toContain('"name":"secret"');
    }
    expect((await get('/api/language/../../secret')).status).toBe(404);
  });

  it('answers 404 with a FastAPI body for an unknown code', async () => {
    expect((await get('/api/language/zz')).json).toEqual({
      detail: "No language 'zz' on this board",
    });
  });

  // Every answer, message, log line and data file of this file's tests, searched for every secret.
  scanForSecretsAfterAll(() => ({ secrets: [TOKEN], dirs: [dir.path] }));
});

import { generateKeyPairSync, sign } from 'node:crypto';
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startProcess } from '../harness/processes.js';
import { SIGNED_SUMS_CONTEXT, SUMS_SIGNATURE_HEADER } from '../src/shared/wire/agent-update.js';
import { agentYaml, eventually, Http, OPERATOR, REGISTRATION } from './helpers/agent-fixtures.js';
import { BUNDLE, sha256 } from './helpers/agent-update.js';
import { tempDir } from './helpers/tmp.js';

interface Overview {
  updates?: string;
  update_outcome?: { state: string; detail: string };
}

const publicOf = (pair: ReturnType<typeof generateKeyPairSync>) =>
  pair.publicKey.export({ format: 'jwk' }).x as string;

/**
 * Whoever answers for the board on a plain-HTTP network (here a stand-in "board" on 127.0.0.1)
 * asks agents to update and serves a file of its own, with SHA256SUMS to match and, at best, a
 * signature by a key of its own. The real agent (the built bundle) must run none of it: it
 * takes only SHA256SUMS signed by the key its enroll pinned.
 */
describe('an update from whoever answers for the board is not run', () => {
  const dir = tempDir('panoptes-update-signature-');
  const marker = `${dir.path}/pwned`;
  const evil = `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, 'ran as ' + process.getuid());\n`;
  const sums = `${sha256(evil)}  panoptes-agent.mjs\n`;
  const genuine = generateKeyPairSync('ed25519');
  const attacker = generateKeyPairSync('ed25519');
  /** The stand-in's signature header: none, or by the attacker's own key. */
  let signature: string | null = null;
  let asked: string[] = [];
  let server: Server;
  let url: string;
  const agents: RunningProgram[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      asked.push(`${req.method} ${req.url}`);
      req.resume();
      if (req.url === '/api/report') {
        const update = { id: `mitm-${asked.length}`, requested_at: new Date().toISOString() };
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ ok: true, actions: [], update }));
      } else if (req.url === '/agent/SHA256SUMS') {
        if (signature !== null) res.setHeader(SUMS_SIGNATURE_HEADER, signature);
        res.end(sums);
      } else if (req.url === '/agent/panoptes-agent.mjs') res.end(evil);
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const agent of agents) await agent.stop();
    await new Promise<void>((r) => server.close(() => r()));
    dir.cleanup();
  });

  async function agentWith(name: string, updateKey: string | null): Promise<RunningProgram> {
    const installed = dir.write(`${name}/panoptes-agent.mjs`, '');
    copyFileSync(BUNDLE, installed);
    const config = dir.write(
      `${name}/agent.yaml`,
      agentYaml(
        `data_dir: ${dir.path}/${name}/data\nupdate_from_board: true\n` +
          (updateKey === null ? '' : `update_key: ${updateKey}\n`) +
          `report:\n  board: ${url}\n  token: ${REGISTRATION}\n  interval: 0.3\n`,
        name,
      ),
    );
    const agent = await startProcess(
      name,
      process.execPath,
      [installed, '--config', config, '--host', '127.0.0.1', '--port', '0'],
      { cwd: `${dir.path}/${name}` },
    );
    agents.push(agent);
    return agent;
  }

  const outcome = async (agent: RunningProgram) =>
    ((await new Http(agent.url).get('/api/overview', { token: OPERATOR })).json as Overview)
      .update_outcome;

  it.each([
    ['without a signature', null, 'came without a signature'],
    ['signed by a key of its own', 'attacker', 'not signed by this agent'],
  ])('refuses SHA256SUMS %s: nothing downloaded, nothing run', async (_what, how, detail) => {
    signature =
      how === null
        ? null
        : sign(null, Buffer.from(SIGNED_SUMS_CONTEXT + sums), attacker.privateKey).toString(
            'base64',
          );
    asked = [];
    const name = how === null ? 'plain1' : 'forged1';
    const agent = await agentWith(name, publicOf(genuine));
    const got = await eventually(async () => await outcome(agent), 'an update outcome');
    expect(got.state).toBe('refused');
    expect(got.detail).toContain(detail);
    expect(asked).toContain('GET /agent/SHA256SUMS');
    expect(asked).not.toContain('GET /agent/panoptes-agent.mjs');
    expect(
      readFileSync(`${dir.path}/${name}/panoptes-agent.mjs`).equals(readFileSync(BUNDLE)),
    ).toBe(true);
    expect(existsSync(marker)).toBe(false);
    await agent.stop();
  });

  it('an agent with no update_key pinned asks for no file at all, and says why', async () => {
    signature = null;
    asked = [];
    const agent = await agentWith('nokey1', null);
    await eventually(async () => (asked.length >= 3 ? true : undefined), 'three reports');
    expect(asked.filter((line) => line.startsWith('GET /agent/'))).toEqual([]);
    expect(agent.output.join('\n')).toContain('no update_key in this agent');
    // The board hears why through the outcome its reports carry.
    expect((await outcome(agent))?.detail).toContain('no update_key in this agent');
    expect(existsSync(marker)).toBe(false);
  });
});

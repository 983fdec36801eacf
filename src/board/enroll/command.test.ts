import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/helpers/tmp.js';
import { CANNOT_RUN_MESSAGE, enrollCommand, NO_BINARY_MESSAGE } from './command.js';

const KEY = 'command-test-key-0123456789abcdef';
const REG = 'command-test-registration-0123456789';
// What each stand-in agent writes: how it was called, and whether the secrets came by environment.
const RECORD = 'echo "$0 $* key=$PANOPTES_BOARD_KEY reg=$PANOPTES_REGISTRATION_TOKEN" > ran';
const BINARY = `#!/bin/sh\n${RECORD}\n`;
const MJS = `import { writeFileSync } from 'node:fs';\nwriteFileSync('ran', \`mjs \${process.argv.slice(2).join(' ')} key=\${process.env.PANOPTES_BOARD_KEY}\`);\n`;
const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const which = (tool: string) =>
  execFileSync('/bin/sh', ['-c', `command -v ${tool}`])
    .toString()
    .trim();

/**
 * The pasted command as sh runs it, on machines of each kind: its own small board (a node:http
 * server serving stand-in agent files), and a PATH that holds only what that machine has.
 */
const UPDATE_KEY = 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

describe('the command picks, fetches, checks and runs the right agent file', () => {
  const dir = tempDir('panoptes-command-');
  let server: Server;
  let board = '';
  const fetched: string[] = [];
  // The files sent gzip-compressed (to a client that asked for gzip), as the board does.
  const gzipped: string[] = [];
  const served: Record<string, string> = {
    'panoptes-agent.mjs': MJS,
    'panoptes-agent-linux-x64': BINARY,
    'panoptes-agent-linux-arm64': BINARY,
  };
  let machines = 0;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const name = (req.url ?? '').replace('/agent/', '');
      fetched.push(name);
      const body = served[name];
      if (body !== undefined && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) {
        gzipped.push(name);
        res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync(body));
        return;
      }
      res.writeHead(body === undefined ? 404 : 200).end(body ?? 'no');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    board = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.close();
    dir.cleanup();
  });

  /** A machine: `tools` linked from this one, `uname -m` saying `arch`, node only if asked. */
  // Not spawnSync: the board answering the command runs in this very process.
  async function pasteOn(opts: {
    arch: string;
    /** `old`: a node that is not 20 or later (its check fails). */
    node?: boolean | 'old';
    fetcher?: 'curl' | 'wget';
    /** The shell it is pasted into (default /bin/sh), as argv before `-c`. */
    shell?: string[];
    files?: string[];
    sums?: Record<string, string>;
  }) {
    machines += 1;
    const root = join(dir.path, `m${machines}`);
    const bin = join(root, 'bin');
    const work = join(root, 'work');
    mkdirSync(bin, { recursive: true });
    mkdirSync(work);
    for (const tool of ['rm', 'chmod', 'sha256sum']) symlinkSync(which(tool), join(bin, tool));
    if (opts.fetcher === 'wget') symlinkSync('/bin/busybox', join(bin, 'wget'));
    else symlinkSync(which('curl'), join(bin, 'curl'));
    if (opts.node === 'old')
      writeFileSync(join(bin, 'node'), '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    else if (opts.node) symlinkSync(process.execPath, join(bin, 'node'));
    writeFileSync(join(bin, 'uname'), `#!/bin/sh\necho ${opts.arch}\n`, { mode: 0o755 });
    const names = opts.files ?? Object.keys(served);
    const files = names.map((name) => ({
      name,
      sha256: opts.sums?.[name] ?? sha(served[name] as string),
    }));
    const command = enrollCommand({
      board,
      name: 'lab7',
      key: KEY,
      registrationToken: REG,
      files,
      updateKey: UPDATE_KEY,
    });
    fetched.length = 0;
    gzipped.length = 0;
    const [shell, ...shellArgs] = opts.shell ?? ['/bin/sh'];
    const child = spawn(shell as string, [...shellArgs, '-c', `${command} --port 0`], {
      cwd: work,
      env: { PATH: bin, HOME: work },
      timeout: 20_000,
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
    });
    const [code] = (await once(child, 'close')) as [number | null];
    const ran = existsSync(join(work, 'ran'))
      ? readFileSync(join(work, 'ran'), 'utf8').trim()
      : null;
    return {
      code,
      stderr,
      ran,
      fetched: [...fetched],
      gzipped: [...gzipped],
      left: readdirSync(work),
      saved: (name: string) => readFileSync(join(work, name), 'utf8'),
    };
  }

  it('runs the .mjs with node where Node 20 or later is there', async () => {
    const r = await pasteOn({ arch: 'x86_64', node: true });
    expect(r.stderr).toBe('');
    expect(r.fetched).toEqual(['panoptes-agent.mjs']);
    // curl asks for gzip (--compressed) and saves the file as it is, which the check then passes.
    expect(r.gzipped).toEqual(['panoptes-agent.mjs']);
    expect(r.saved('panoptes-agent.mjs')).toBe(MJS);
    expect(r.ran).toBe(
      `mjs enroll --board=${board} --name=lab7 --update-key=${UPDATE_KEY} --port 0 key=${KEY}`,
    );
  });

  it('runs the binary for uname -m where there is no node, with the secrets in its environment', async () => {
    for (const [arch, file] of [
      ['x86_64', 'panoptes-agent-linux-x64'],
      ['amd64', 'panoptes-agent-linux-x64'],
      ['aarch64', 'panoptes-agent-linux-arm64'],
      ['arm64', 'panoptes-agent-linux-arm64'],
    ]) {
      const r = await pasteOn({ arch: arch as string });
      expect(r.fetched).toEqual([file]);
      expect(r.gzipped).toEqual([file]);
      expect(r.saved(file as string)).toBe(BINARY);
      expect(r.ran).toBe(
        `./${file} enroll --board=${board} --name=lab7 --update-key=${UPDATE_KEY} --port 0 key=${KEY} reg=${REG}`,
      );
    }
  });

  it('runs the binary where node is older than 20', async () => {
    const r = await pasteOn({ arch: 'x86_64', node: 'old' });
    expect(r.fetched).toEqual(['panoptes-agent-linux-x64']);
    expect(r.ran).toMatch(/^\.\/panoptes-agent-linux-x64 enroll /);
  });

  it('works the same in bash and in busybox sh', async () => {
    // busybox sh runs its own uname, not the stand-in: use this machine's real one.
    const arch = execFileSync('uname', ['-m']).toString().trim();
    const file = arch === 'aarch64' ? 'panoptes-agent-linux-arm64' : 'panoptes-agent-linux-x64';
    for (const shell of [['/bin/bash'], ['/bin/busybox', 'sh']]) {
      if (!existsSync(shell[0] as string)) continue;
      const binary = await pasteOn({ arch, shell });
      expect(binary.ran).toBe(
        `./${file} enroll --board=${board} --name=lab7 --update-key=${UPDATE_KEY} --port 0 key=${KEY} reg=${REG}`,
      );
      const mjs = await pasteOn({ arch, node: true, shell });
      expect(mjs.ran).toBe(
        `mjs enroll --board=${board} --name=lab7 --update-key=${UPDATE_KEY} --port 0 key=${KEY}`,
      );
    }
  });

  it.skipIf(!existsSync('/bin/busybox'))(
    'fetches with wget where there is no curl (busybox)',
    async () => {
      const r = await pasteOn({ arch: 'x86_64', fetcher: 'wget' });
      expect(r.fetched).toEqual(['panoptes-agent-linux-x64']);
      // busybox wget asks for no encoding: the raw file.
      expect(r.gzipped).toEqual([]);
      expect(r.saved('panoptes-agent-linux-x64')).toBe(BINARY);
      expect(r.ran).toMatch(/^\.\/panoptes-agent-linux-x64 enroll /);
    },
  );

  it('runs the file with --version before the enroll, and names the packages a binary lacks', async () => {
    const missing =
      './panoptes-agent-linux-x64: error while loading shared libraries: libatomic.so.1: cannot open shared object file: No such file or directory';
    served['panoptes-agent-linux-x64'] =
      `#!/bin/sh\nif [ "$1" = --version ]; then echo '${missing}' >&2; echo more >&2; exit 127; fi\n${RECORD}\n`;
    try {
      const r = await pasteOn({ arch: 'x86_64' });
      expect(r.code).not.toBe(0);
      expect(r.stderr.trim().split('\n')).toEqual([
        `panoptes-agent-linux-x64 does not run on this machine: ${missing}`,
        CANNOT_RUN_MESSAGE,
      ]);
      expect(r.ran).toBeNull();
      expect(r.left).not.toContain('panoptes-agent.yaml');
    } finally {
      served['panoptes-agent-linux-x64'] = BINARY;
    }
  });

  it('fails with a plain word on a machine it has no file for', async () => {
    const odd = await pasteOn({ arch: 'riscv64' });
    expect(odd.code).not.toBe(0);
    expect(odd.stderr.trim()).toBe(
      'this board serves no agent binary for riscv64; install Node 20 or later',
    );
    expect(odd.fetched).toEqual([]);
    const none = await pasteOn({ arch: 'x86_64', files: ['panoptes-agent.mjs'] });
    expect(none.code).not.toBe(0);
    expect(none.stderr.trim()).toBe(NO_BINARY_MESSAGE);
    expect(none.fetched).toEqual([]);
    expect(none.left).toEqual([]);
  });

  it('removes a binary that does not match its SHA-256, and runs nothing', async () => {
    const r = await pasteOn({
      arch: 'aarch64',
      sums: { 'panoptes-agent-linux-arm64': '0'.repeat(64) },
    });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      'panoptes-agent-linux-arm64 does not match the SHA-256 the board gave: removed, not run',
    );
    expect(r.ran).toBeNull();
    expect(r.left).toEqual([]);
  });
});

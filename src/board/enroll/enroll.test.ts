import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { testBoard } from '../../../test/helpers/board-kit.js';
import { keyProof } from '../../shared/wire/key-proof.js';
import { BOARD_WHO, registrationWho } from '../domain/who.js';
import { MemoryStore } from '../store/memory/state-store.js';
import type { AgentFiles } from './agent-files.js';
import { boardAddress, CANNOT_RUN_MESSAGE, enrollCommand, shellQuote } from './command.js';
import { Enroller } from './enroller.js';
import { ENROLLMENTS_MAX, Enrollments } from './enrollments.js';
import { SumsSigner } from './sums-signer.js';

const REGISTRATION = 'registration-token-0123456789';
const UPDATE_KEY = 'A'.repeat(43);
const agentFiles = {
  list: async () => [
    { name: 'panoptes-agent.mjs', sha256: 'ab'.repeat(32), size: 1, path: '/x' },
    { name: 'panoptes-agent-linux-x64', sha256: 'cd'.repeat(32), size: 1, path: '/y' },
  ],
} as unknown as AgentFiles;

function enroller(t: ReturnType<typeof testBoard>) {
  return new Enroller({
    board: t.board,
    enrollments: t.enrollments,
    agentFiles,
    signer: new SumsSigner(new MemoryStore().signing, () => 0),
    settings: () => t.settings,
    labels: { keep: async () => undefined },
  });
}

describe('Enrollments', () => {
  it('makes a fresh key per enrolment, keeps it in the store, and forgets it on revoke', async () => {
    const store = new MemoryStore();
    let now = 1000;
    const e = new Enrollments(store.enrollments, () => now, []);
    const first = await e.enroll('lab7');
    const again = await e.enroll('lab7');
    expect(first.key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(again.key).not.toBe(first.key);
    expect(e.keyFor('lab7')).toBe(again.key);
    // Names are unique without regard to case, but a key belongs to its exact name.
    expect(e.keyFor('LAB7')).toBeUndefined();
    expect(e.find('LAB7')?.name).toBe('lab7');
    now = 2000;
    expect(await e.revoke('lab7')).toBe(true);
    expect(await e.revoke('lab7')).toBe(false);
    expect(e.keyFor('lab7')).toBeUndefined();
    expect(e.revoked('lab7')).toBe(true);
    expect(e.list()).toEqual([]);
    // What a restart (or another board) reads back.
    const back = new Enrollments(store.enrollments, () => now, await store.enrollments.load());
    expect(back.revoked('lab7')).toBe(true);
    expect(await store.enrollments.load()).toEqual([
      { name: 'lab7', key: null, enrolled_at: 1000, revoked_at: 2000 },
    ]);
  });

  it('takes a revocation told by another board at once, without writing it again', async () => {
    const store = new MemoryStore();
    const e = new Enrollments(store.enrollments, () => 3000, []);
    await e.enroll('lab7');
    e.revokedElsewhere('lab7');
    e.revokedElsewhere('lab8'); // enrolled and revoked there before this board read either
    expect(e.keyFor('lab7')).toBeUndefined();
    expect(e.revoked('lab7')).toBe(true);
    expect(e.revoked('lab8')).toBe(true);
    expect((await store.enrollments.load()).map((r) => r.key === null)).toEqual([false]);
    // The next read of the shared rows is the truth again.
    e.sync(await store.enrollments.load());
    expect(e.revoked('lab8')).toBe(false);
  });

  it('is bounded', async () => {
    const rows = Array.from({ length: ENROLLMENTS_MAX }, (_, i) => ({
      name: `m${i}`,
      key: 'k'.repeat(43),
      enrolled_at: 0,
      revoked_at: null,
    }));
    const e = new Enrollments(new MemoryStore().enrollments, () => 0, rows);
    expect(e.roomFor('m1')).toBe(true);
    expect(e.roomFor('another')).toBe(false);
  });
});

describe('the command', () => {
  it('quotes every value for sh, whatever it holds', () => {
    for (const value of ["it's", 'a b', '$(id)', '`id`', "'; rm -rf / #", '\\n']) {
      expect(execFileSync('/bin/sh', ['-c', `printf %s ${shellQuote(value)}`]).toString()).toBe(
        value,
      );
    }
  });

  it('picks the .mjs or the binary for uname -m, checks it, then enrolls with the secrets in the environment', () => {
    const files = [
      { name: 'panoptes-agent.mjs', sha256: 'ab'.repeat(32) },
      { name: 'panoptes-agent-linux-x64', sha256: 'cd'.repeat(32) },
      { name: 'panoptes-agent-linux-arm64', sha256: 'ef'.repeat(32) },
      { name: 'SHA256SUMS', sha256: '01'.repeat(32) },
    ];
    const command = enrollCommand({
      board: 'https://board.example:8700/',
      name: 'lab7',
      key: 'k'.repeat(43),
      registrationToken: REGISTRATION,
      files,
      updateKey: UPDATE_KEY,
    });
    const sum = '"$panoptes_sum  $panoptes_file"';
    const url = `'https://board.example:8700/agent/'"$panoptes_file"`;
    expect(command).toBe(
      [
        `{ if node -e 'process.exit(process.versions.node.split(".")[0] >= 20 ? 0 : 1)' 2>/dev/null;`,
        `then panoptes_file=panoptes-agent.mjs; panoptes_sum=${'ab'.repeat(32)}; panoptes_run=node; panoptes_arg=panoptes-agent.mjs;`,
        'else case $(uname -m) in',
        `x86_64|amd64) panoptes_file=panoptes-agent-linux-x64; panoptes_sum=${'cd'.repeat(32)}; panoptes_run=./panoptes-agent-linux-x64; panoptes_arg=;;`,
        `aarch64|arm64) panoptes_file=panoptes-agent-linux-arm64; panoptes_sum=${'ef'.repeat(32)}; panoptes_run=./panoptes-agent-linux-arm64; panoptes_arg=;;`,
        `*) echo "this board serves no agent binary for $(uname -m); install Node 20 or later" >&2; false;;`,
        'esac; fi; }',
        `&& { if command -v curl >/dev/null; then curl -fsSL --compressed ${url} -o "$panoptes_file";`,
        `else wget -qO "$panoptes_file" ${url}; fi; }`,
        `&& { if command -v sha256sum >/dev/null; then echo ${sum} | sha256sum -c -;`,
        `else echo ${sum} | shasum -a 256 -c -; fi`,
        `|| { rm -f "$panoptes_file"; echo "$panoptes_file does not match the SHA-256 the board gave: removed, not run" >&2; false; }; }`,
        '&& { [ "$panoptes_arg" = panoptes-agent.mjs ] || chmod +x "$panoptes_file"; }',
        '&& { panoptes_err=$("$panoptes_run" $panoptes_arg --version 2>&1 >/dev/null)',
        `|| { printf '%s\\n' "$panoptes_err" | { read -r panoptes_err; echo "$panoptes_file does not run on this machine: $panoptes_err" >&2; };`,
        `[ "$panoptes_arg" = panoptes-agent.mjs ] || echo '${CANNOT_RUN_MESSAGE}' >&2; false; }; }`,
        `&& PANOPTES_BOARD_KEY='${'k'.repeat(43)}' PANOPTES_REGISTRATION_TOKEN='${REGISTRATION}'`,
        `"$panoptes_run" $panoptes_arg enroll --board='https://board.example:8700' --name='lab7' --update-key='${UPDATE_KEY}'`,
      ].join(' '),
    );
    // A board without binaries: the .mjs alone, and a plain word where there is no Node.
    const mjsOnly = enrollCommand({
      board: 'http://b',
      name: 'lab7',
      key: 'k',
      registrationToken: 'r',
      files: files.slice(0, 1),
      updateKey: UPDATE_KEY,
    });
    expect(mjsOnly).toContain(
      `else echo 'this board serves no agent binary; install Node 20 or later' >&2; false; fi; }`,
    );
    expect(mjsOnly).not.toContain('uname');
    const parts = {
      board: 'x',
      name: 'a',
      key: 'k',
      registrationToken: 'r',
      updateKey: UPDATE_KEY,
    };
    const bad = [{ name: 'panoptes-agent.mjs', sha256: "'; id" }];
    expect(() => enrollCommand({ ...parts, files: bad })).toThrow(/SHA-256/);
    expect(() => enrollCommand({ ...parts, files: files.slice(1) })).toThrow(/panoptes-agent.mjs/);
  });

  it('names the board by public_url, else by a plain Host header', () => {
    expect(boardAddress('https://b.example/panoptes/', false, 'x')).toBe(
      'https://b.example/panoptes',
    );
    expect(boardAddress(null, true, 'board.lan:8700')).toBe('https://board.lan:8700');
    expect(boardAddress(null, false, '[::1]:8700')).toBe('http://[::1]:8700');
    for (const host of ["x' && id '", 'a b', 'a/b', undefined, '']) {
      expect(boardAddress(null, false, host)).toBeNull();
    }
  });
});

describe('Enroller and the board', () => {
  it('enrolls, journals without the key, and the machine then reports verified', async () => {
    const t = testBoard({ registration_token: REGISTRATION });
    const answer = await enroller(t).enroll(BOARD_WHO, 'lab7', 'http://board:8700');
    expect(answer.status).toBe(200);
    const body = answer.body as { key: string; command: string; agent_sha256: string };
    expect(body.agent_sha256).toBe('ab'.repeat(32));
    // The command carries every served file's SHA-256: the .mjs and the binary there is.
    expect(body.command).toContain(`panoptes_sum=${'ab'.repeat(32)}; panoptes_run=node;`);
    expect(body.command).toContain(
      `x86_64|amd64) panoptes_file=panoptes-agent-linux-x64; panoptes_sum=${'cd'.repeat(32)};`,
    );
    expect(body.command).not.toContain('aarch64');
    const entry = t.journal.recent(1)[0];
    expect(`${entry?.op} ${entry?.outcome} ${entry?.detail}`).toBe('enroll enrolled key made');
    expect(JSON.stringify(t.journal.recent(10))).not.toContain(body.key);
    const location = 'http://lab7:8701';
    const refused = await t.board.report(registrationWho(''), { name: 'lab7', location });
    expect(refused.status).toBe(403);
    const ok = await t.board.report(registrationWho(''), {
      name: 'lab7',
      location,
      key_proof: keyProof(body.key, 'lab7', location),
    });
    expect(ok.status).toBe(200);
    expect(t.registry.get('lab7')?.verified).toBe(true);
  });

  it('refuses what it must not enroll, with 409 and a reason', async () => {
    const t = testBoard({
      registration_token: REGISTRATION,
      machines: [{ name: 'web1', url: 'http://127.0.0.1:1', key: 'machine-key-0123456789' }],
      announced_keys: { lab3: 'lab-key-0123456789ab' },
    });
    const e = enroller(t);
    expect((await e.enroll(BOARD_WHO, 'Lab4', 'http://b')).status).toBe(200);
    const detail = async (name: string, board: string | null = 'http://b') => {
      const a = await e.enroll(BOARD_WHO, name, board);
      expect(a.status).toBe(409);
      return (a.body as { detail: string }).detail;
    };
    expect(await detail('web1')).toContain('configured machine');
    expect(await detail('lab3')).toContain('announced_keys');
    expect(await detail('lab4')).toContain("differs only in case from 'Lab4'");
    expect(await detail('lab5', null)).toContain('public_url');
    const off = testBoard();
    const offAnswer = await enroller(off).enroll(BOARD_WHO, 'lab5', 'http://b');
    expect((offAnswer.body as { detail: string }).detail).toContain('registration_token');
    expect(t.enrollments.list().map((r) => r.name)).toEqual(['Lab4']);
  });

  it('an announcement no key proved gives way to the name enrolled in another case', async () => {
    const t = testBoard({ registration_token: REGISTRATION });
    await t.board.report(registrationWho(''), { name: 'Lab4', location: 'http://lab4' });
    expect((await enroller(t).enroll(BOARD_WHO, 'lab4', 'http://b')).status).toBe(200);
    expect(t.registry.get('Lab4')).toBeUndefined();
    const squat = await t.board.report(registrationWho(''), { name: 'LAB4', location: 'http://x' });
    expect(squat.status).toBe(409);
  });

  it('revokes through forget: the name leaves, its reports are refused until enrolled again', async () => {
    const t = testBoard({ registration_token: REGISTRATION });
    const { key } = (await enroller(t).enroll(BOARD_WHO, 'lab7', 'http://b')).body as {
      key: string;
    };
    const location = 'http://lab7:8701';
    const report = (k: string) =>
      t.board.report(registrationWho(''), {
        name: 'lab7',
        location,
        key_proof: keyProof(k, 'lab7', location),
      });
    const first = await t.board.report(registrationWho(''), { name: 'lab7', location });
    expect(first.status).toBe(403);
    expect((await report(key)).status).toBe(200);
    expect((await t.board.forget(BOARD_WHO, 'lab7')).status).toBe(200);
    expect(t.registry.get('lab7')).toBeUndefined();
    const refused = await report(key);
    expect(refused.status).toBe(403);
    // `revoked`: the agent's signal to stop honouring its board key; other 403s lack it.
    expect(refused.body).toEqual({ detail: expect.stringContaining('revoked'), revoked: true });
    expect(first.body).not.toHaveProperty('revoked');
    // Without a proof too: a revoked name does not come back as an unverified machine.
    expect((await t.board.report(registrationWho(''), { name: 'lab7', location })).status).toBe(
      403,
    );
    const fresh = (await enroller(t).enroll(BOARD_WHO, 'lab7', 'http://b')).body as {
      key: string;
    };
    t.clock.advance(1000);
    expect((await report(fresh.key)).status).toBe(200);
  });
});

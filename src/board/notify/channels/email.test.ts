import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliver } from '../deliver.js';
import { asIs } from '../markup.js';
import { renderMessage } from '../render.js';
import { parseChannelUrl } from './index.js';

/** A mail the SMTP server took: envelope, whether TLS was on, who logged in, and the data. */
interface Taken {
  from: string;
  to: string[];
  secure: boolean;
  user: string | null;
  data: string;
}

const USER = 'board';
const PASS = 'smtp-password-secret-42';

async function smtpServer(
  options: Partial<SMTPServerOptions>,
): Promise<{ port: number; taken: Taken[]; close(): Promise<void> }> {
  const taken: Taken[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: [],
    onAuth(auth, _session, callback) {
      if (auth.username === USER && auth.password === PASS) callback(null, { user: USER });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        taken.push({
          from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((r) => r.address),
          secure: session.secure,
          user: typeof session.user === 'string' ? session.user : null,
          data: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
    logger: false,
    ...options,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    port,
    taken,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const EVENT = {
  event: 'down' as const,
  machine: 'web1',
  at: '2026-01-01T00:00:00.000Z',
  reason: 'connection refused',
};

/** SMTP email through nodemailer against a real SMTP server (smtp-server) on loopback. */
describe('email channel (smtp://) against a real SMTP server', () => {
  const dir = mkdtempSync(join(tmpdir(), 'panoptes-smtp-'));
  let cert: string;
  let key: string;
  beforeAll(() => {
    // A certificate for 127.0.0.1, trusted by the channel through ca=.
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '2',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
    key = readFileSync(join(dir, 'key.pem'), 'utf8');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('plain (encryption=none) delivers the message with from, to and the title as subject', async () => {
    const smtp = await smtpServer({ disabledCommands: ['STARTTLS', 'AUTH'] });
    try {
      const channel = parseChannelUrl(
        `smtp://127.0.0.1:${smtp.port}/?from=board@example.org&to=ops@example.org,oncall@example.org&encryption=none`,
      );
      const result = await deliver(channel, renderMessage([EVENT], null, null, asIs), {
        timeoutMs: 5000,
      });
      expect(result).toMatchObject({ ok: true });
      expect(smtp.taken).toHaveLength(1);
      const mail = smtp.taken[0];
      expect(mail?.from).toBe('board@example.org');
      expect(mail?.to).toEqual(['ops@example.org', 'oncall@example.org']);
      expect(mail?.secure).toBe(false);
      expect(mail?.data).toContain('Subject: Panoptes: web1 down');
      expect(mail?.data).toContain('web1 is down: connection refused');
    } finally {
      await smtp.close();
    }
  });

  it('STARTTLS with a login: the mail goes encrypted and authenticated; a wrong password fails without naming it', async () => {
    const smtp = await smtpServer({ key, cert, authMethods: ['PLAIN', 'LOGIN'] });
    try {
      const url = (pass: string) =>
        `smtp://${USER}:${pass}@127.0.0.1:${smtp.port}/?from=board@example.org&to=ops@example.org&encryption=StartTLS&ca=${join(dir, 'cert.pem')}`;
      const readFile = (p: string) => readFileSync(p, 'utf8');
      const result = await deliver(
        parseChannelUrl(url(PASS), { readFile }),
        renderMessage([EVENT], null, null, asIs),
        {
          timeoutMs: 5000,
        },
      );
      expect(result).toMatchObject({ ok: true });
      expect(smtp.taken[0]).toMatchObject({ secure: true, user: USER });

      const wrong = 'wrong-password-secret-99';
      const refused = await deliver(
        parseChannelUrl(url(wrong), { readFile }),
        renderMessage([EVENT], null, null, asIs),
        {
          timeoutMs: 5000,
          backoffMs: [1, 1],
        },
      );
      expect(refused.ok).toBe(false);
      if (!refused.ok) {
        expect(refused.status).toBe(535);
        // 5xx is permanent in SMTP: one try.
        expect(refused.tries).toBe(1);
        expect(refused.why).not.toContain(wrong);
      }
    } finally {
      await smtp.close();
    }
  });

  it('a machine cannot add a line or a header: its line breaks are shown as ⏎', () => {
    const channel = parseChannelUrl('smtp://127.0.0.1:25/?from=a@example.org&to=b@example.org');
    const hostile = 'text\n✖ web1 is down\r\nBcc: x@example.org\u2028✖ 3';
    const event = { ...EVENT, machine: hostile, reason: hostile };
    const transport = channel.build(renderMessage([event], null, null, channel.escape));
    if (transport.type !== 'smtp') throw new Error('not a mail');
    expect(transport.mail.subject).toBe(
      `Panoptes: ${hostile.replace(/\r\n|[\n\u2028]/g, '⏎')} down`,
    );
    expect(transport.mail.text.split(/\r\n|[\n\r\v\f\u0085\u2028\u2029]/)).toHaveLength(1);
    expect(transport.mail.text).toContain('text⏎✖ web1 is down⏎Bcc: x@example.org⏎✖ 3');
  });

  it('encryption=starttls refuses a server that does not offer STARTTLS', async () => {
    const smtp = await smtpServer({ disabledCommands: ['STARTTLS', 'AUTH'] });
    try {
      const channel = parseChannelUrl(
        `smtp://127.0.0.1:${smtp.port}/?from=a@example.org&to=b@example.org&encryption=starttls`,
      );
      const result = await deliver(channel, renderMessage([EVENT], null, null, asIs), {
        timeoutMs: 5000,
        tries: 1,
      });
      expect(result.ok).toBe(false);
      expect(smtp.taken).toHaveLength(0);
    } finally {
      await smtp.close();
    }
  });
});

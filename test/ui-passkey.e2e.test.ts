/// <reference lib="dom" />
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { launchBrowser } from '../harness/browser.js';
import { type RunningProgram, runToExit, startProgram } from '../harness/processes.js';
import { watchedPage } from './helpers/browser.js';
import { closedPort, writeBoardConfig } from './helpers/fleet.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'ui-passkey-board-token-0123456789';

/**
 * A passkey registered on the sign-up page and used to sign in, in Chromium with a virtual
 * authenticator over the DevTools protocol. http://localhost is a secure context, and
 * `localhost` a valid relying party id, so the board runs there without TLS.
 */
describe('passkeys: a link from the users command, registered in Chromium, then signing in', () => {
  vi.setConfig({ testTimeout: 90_000, hookTimeout: 60_000 });
  const dir = tempDir('panoptes-ui-passkey-');
  let board: RunningProgram;
  let browser: Browser;
  let configDir: string;
  let origin: string;

  beforeAll(async () => {
    const port = await closedPort();
    configDir = writeBoardConfig(dir, 'board', { board_token: TOKEN, port });
    [board, browser] = await Promise.all([
      startProgram('board', ['--config', configDir, '--port', String(port)]),
      launchBrowser(),
    ]);
    origin = `http://localhost:${port}`;
  });

  afterAll(async () => {
    await browser?.close();
    await board?.stop();
    dir.cleanup();
  });

  it('registers a passkey with a one-time link, then signs in with it (GET /api/me: via passkey)', async () => {
    const made = await runToExit('board', [
      'users',
      'add',
      'ada',
      '--role',
      'admin',
      '--config',
      configDir,
    ]);
    expect(made.code).toBe(0);
    const link = /(http\S+#signup=\S+)/.exec(made.output)?.[1] ?? '';
    expect(link.startsWith(`${origin}/#signup=`)).toBe(true);

    const context = await browser.newContext();
    const watched = await watchedPage(context);
    const { page } = watched;
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });

    await page.goto(link);
    await page.getByRole('heading', { name: 'Welcome, ada' }).waitFor();
    // The secret is taken off the address bar at once.
    expect(page.url()).not.toContain('signup=');
    await page.getByRole('button', { name: 'Register a passkey' }).click();
    await expect
      .poll(() => page.getByTestId('signup-done').textContent())
      .toContain('You are signed in as ada.');
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]?.isResidentCredential).toBe(true);

    const me = () =>
      page.evaluate(async () => {
        const r = await fetch('/api/me');
        return { status: r.status, body: r.status === 200 ? await r.json() : null };
      });
    expect(await me()).toMatchObject({ status: 200, body: { name: 'ada', via: 'passkey' } });

    // Signed out (the cookie gone), then in again with the passkey alone: no name typed.
    await context.clearCookies();
    expect((await me()).status).toBe(401);
    const signIn = () =>
      page.evaluate(async () => {
        const post = (path: string, body: unknown) =>
          fetch(path, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
        const options = await (await post('/auth/passkey/options', {})).json();
        const P = PublicKeyCredential as unknown as {
          parseRequestOptionsFromJSON(o: unknown): PublicKeyCredentialRequestOptions;
        };
        const credential = (await navigator.credentials.get({
          publicKey: P.parseRequestOptionsFromJSON(options),
        })) as PublicKeyCredential & { toJSON(): unknown };
        const r = await post('/auth/passkey', { response: credential.toJSON() });
        return { status: r.status, body: await r.json() };
      });
    expect(await signIn()).toEqual({ status: 200, body: { name: 'ada' } });
    expect(await me()).toMatchObject({ status: 200, body: { name: 'ada', via: 'passkey' } });
    // Again: the counter the board kept moved on with the authenticator's.
    await context.clearCookies();
    expect(await signIn()).toEqual({ status: 200, body: { name: 'ada' } });
    const after = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(after.credentials[0]?.signCount).toBeGreaterThanOrEqual(2);

    const people = await fetch(`${board.url}/api/people`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const list = (await people.json()) as { people: { name: string; passkeys: number }[] };
    expect(list.people.find((p) => p.name === 'ada')?.passkeys).toBe(1);

    // What the test provokes: /api/me signed out, the used link (each answered once).
    watched.allow(/status of 401/);
    watched.allow(/status of 404/);
    // The link worked once (a fresh load: a new fragment alone does not reload the page).
    await page.goto('about:blank');
    await page.goto(link);
    await page.getByRole('alert').filter({ hasText: 'This link is not valid' }).waitFor();
    await watched.expectClean();
    await context.close();
  });

  it('an answer to no challenge of this board (another site) is refused in the words a stranger gets', async () => {
    const context = await browser.newContext();
    const watched = await watchedPage(context);
    const { page } = watched;
    watched.allow(/401/);
    await page.goto(`${origin}/`);
    // An answer that was never a challenge of this board: 401, the same words as a stranger's.
    const r = await page.evaluate(async () => {
      const clientData = btoa(
        JSON.stringify({
          type: 'webauthn.get',
          challenge: 'bm90LWEtY2hhbGxlbmdl',
          origin: 'https://evil.example',
        }),
      ).replace(/=+$/, '');
      const res = await fetch('/auth/passkey', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          response: {
            id: 'AAAA',
            rawId: 'AAAA',
            type: 'public-key',
            response: {
              clientDataJSON: clientData,
              authenticatorData: 'AAAA',
              signature: 'AAAA',
              userHandle: 'YWRh',
            },
            clientExtensionResults: {},
          },
        }),
      });
      return { status: res.status, body: await res.json() };
    });
    expect(r).toEqual({ status: 401, body: { detail: 'That passkey is not known here' } });
    await context.close();
  });
});

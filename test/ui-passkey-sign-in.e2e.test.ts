/// <reference lib="dom" />
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { launchBrowser } from '../harness/browser.js';
import { type RunningProgram, runToExit, startProgram } from '../harness/processes.js';
import { watchedPage } from './helpers/browser.js';
import { closedPort, writeBoardConfig } from './helpers/fleet.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'ui-passkey-sign-in-board-token-0123';

/**
 * The sign-in page's passkey button, end to end: a passkey registered with a one-time link in
 * Chromium's virtual authenticator (DevTools protocol), Sign out in the top bar, then *Use a
 * passkey*. http://localhost is a secure context and a valid relying party id.
 */
describe('UI: Sign out, then in again with the passkey button', () => {
  vi.setConfig({ testTimeout: 90_000, hookTimeout: 60_000 });
  const dir = tempDir('panoptes-ui-passkey-sign-in-');
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

  it('registers a passkey, signs out from the top bar, and signs in with *Use a passkey*', async () => {
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
    const context = await browser.newContext();
    const watched = await watchedPage(context);
    // The sign-in page asks GET /api/me first: signed out, 401.
    watched.allow(/status of 401/);
    const { page } = watched;
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
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
    await page.getByRole('button', { name: 'Register a passkey' }).click();
    await page.getByTestId('signup-done').waitFor();

    await page.goto(`${origin}/`);
    await page.getByTestId('summary').waitFor();
    await expect.poll(() => page.getByTestId('signed-in-as').textContent()).toBe('ada');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Board token').waitFor();

    await page.getByRole('button', { name: 'Use a passkey' }).click();
    await page.getByTestId('summary').waitFor();
    await expect.poll(() => page.getByTestId('signed-in-as').textContent()).toBe('ada');
    const me = await page.evaluate(async () => (await fetch('/api/me')).json());
    expect(me).toMatchObject({ name: 'ada', via: 'passkey' });
    await watched.expectClean();
    await context.close();
  });
});

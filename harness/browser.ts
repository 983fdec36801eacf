import { type Browser, chromium } from 'playwright-core';

/** Debian's Chromium (CI installs it; `npx playwright install` cannot work here). */
export const CHROMIUM = process.env.PANOPTES_CHROMIUM ?? '/usr/bin/chromium';

/** Headless, and quiet: no background connections to hosts this machine cannot reach. */
export function launchBrowser(extraArgs: readonly string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    timeout: 20_000,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      ...extraArgs,
    ],
  });
}

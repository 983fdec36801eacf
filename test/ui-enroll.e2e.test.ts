import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningProgram } from '../harness/processes.js';
import { REGISTRATION } from './helpers/agent-fixtures.js';
import { BOARD_TOKEN, card, openBoard, useBrowserPage } from './helpers/browser.js';
import { paste, pasteBin } from './helpers/pasted.js';
import { tempDir } from './helpers/tmp.js';

/**
 * A person who has only the board page adds a machine: "Add a machine", a name, the command
 * copied from the dialog and run as a shell would in an empty directory with nothing but node
 * and curl (this machine plays the new one); the dialog turns to "lab7 is up" over the live
 * feed; "Revoke" on its card keeps it out.
 */
describe('UI: add a machine from the board, and revoke it', () => {
  const dir = tempDir('panoptes-ui-enroll-');
  const bin = join(dir.path, 'bin');
  const pasted: RunningProgram[] = [];
  const ui = useBrowserPage({
    dir,
    fleet: { configured: [] },
    page: {
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      permissions: ['clipboard-read', 'clipboard-write'],
    },
  });

  const journal = async () => {
    const r = await fetch(`${ui.fleet.board.url}/api/journal?limit=100`, {
      headers: { authorization: `Bearer ${BOARD_TOKEN}` },
    });
    return ((await r.json()) as { entries: { op: string; target: string; detail: string }[] })
      .entries;
  };

  beforeAll(async () => {
    await pasteBin(bin);
  });
  afterAll(async () => {
    await Promise.all(pasted.map((p) => p.stop()));
  });

  it('on a phone: name, command, paste, "lab7 is up", then Revoke keeps it out', async () => {
    const { page } = ui;
    await openBoard(page, ui.fleet.board.url, BOARD_TOKEN);
    await page.locator('[data-status="live"]').waitFor();
    const clicked = performance.now();
    await page.getByRole('button', { name: 'Add a machine' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a machine' });
    await dialog.getByLabel('Name of the machine').fill('lab7');
    // Labels kept for it: a bad one is named at once and nothing is sent.
    const labels = dialog.getByLabel('Labels (optional)');
    await labels.fill('site=fra, Gpu');
    expect(await dialog.locator('#add-labels-hint').textContent()).toContain('label "Gpu"');
    expect(await dialog.getByRole('button', { name: 'Make the command' }).isDisabled()).toBe(true);
    await labels.fill('site=fra, gpu');
    await dialog.getByRole('button', { name: 'Make the command' }).click();
    const box = dialog.getByRole('textbox', { name: 'Command for lab7' });
    await box.waitFor();
    // The dialog fits the phone's width.
    const width = await dialog.evaluate((d) => d.getBoundingClientRect().width);
    expect(width).toBeLessThanOrEqual(390);
    await dialog.getByRole('button', { name: 'Copy' }).click();
    await dialog.getByRole('button', { name: 'Copied' }).waitFor();
    const command = await page.evaluate(() => navigator.clipboard.readText());
    expect(command).toBe(await box.inputValue());
    expect(command).not.toContain(BOARD_TOKEN);
    expect(command).toContain(REGISTRATION);
    expect(await dialog.locator('.sha code').first().textContent()).toMatch(/^[0-9a-f]{64}$/);
    // The board is plain HTTP here: the dialog says so, and shows the key updates are checked
    // against (the one GET /agent/update-key serves, and the command pins).
    expect(await dialog.getByTestId('add-plain-http').textContent()).toContain('plain HTTP');
    const updateKey = await dialog.getByTestId('add-update-key').locator('code').textContent();
    const served = await (await fetch(`${ui.fleet.board.url}/agent/update-key`)).text();
    expect(updateKey).toBe(served.trim());
    expect(command).toContain(`--update-key='${updateKey}'`);
    // The board was opened at 127.0.0.1: the dialog says the command works on this machine only.
    expect(await dialog.getByTestId('add-loopback').count()).toBe(1);
    await expect.poll(() => dialog.getByRole('status').textContent()).toContain('Waiting for lab7');

    // Pasted on "lab7" (this machine): an empty directory, no npm, no node_modules. --port 0
    // only because a test may not take the agent's default port; --interval keeps it short.
    const work = join(dir.path, 'lab7');
    pasted.push(await paste(`${command} --port 0 --interval 1`, bin, work));
    await dialog.locator('[data-state="up"]').waitFor({ timeout: 30_000 });
    expect(await dialog.getByRole('status').textContent()).toContain('lab7 is up');
    const ms = performance.now() - clicked;
    console.log(
      `click "Add a machine" → lab7 up and verified on the board: ${(ms / 1000).toFixed(1)} s`,
    );
    expect(readdirSync(work)).not.toContain('node_modules');
    // The dialog's labels are its board labels from its first report on.
    const seen = await fetch(`${ui.fleet.board.url}/api/board?selector=name%3Dlab7`, {
      headers: { authorization: `Bearer ${BOARD_TOKEN}` },
    });
    const [record] = ((await seen.json()) as { machines: Record<string, unknown>[] }).machines;
    expect(record).toMatchObject({
      labels: { gpu: '', site: 'fra' },
      board_labels: ['gpu', 'site'],
    });
    await dialog.getByRole('button', { name: 'Close' }).click();

    // Its card offers Revoke (an enrolled machine), asked once more before it is done.
    const lab7 = card(page, 'lab7');
    await lab7.waitFor();
    await lab7.getByRole('button', { name: 'Revoke the key of lab7 and forget it' }).click();
    await page.getByRole('button', { name: 'Yes, revoke lab7' }).click();
    await expect.poll(() => card(page, 'lab7').count()).toBe(0);
    await expect
      .poll(async () =>
        (await journal()).some(
          (e) => e.op === 'report' && e.target === 'lab7' && /revoked/.test(e.detail),
        ),
      )
      .toBe(true);
    // Still out a while later: its reports are refused, not taken.
    await page.waitForTimeout(2000);
    expect(await card(page, 'lab7').count()).toBe(0);
  });

  it("a newcomer's machine page: the top bar stays, and the range shows the minutes it has", async () => {
    const { page } = ui;
    const r = await fetch(`${ui.fleet.board.url}/api/machines/lab9/enroll`, {
      method: 'POST',
      headers: { authorization: `Bearer ${BOARD_TOKEN}` },
    });
    const { command } = (await r.json()) as { command: string };
    pasted.push(await paste(`${command} --port 0 --interval 1`, bin, join(dir.path, 'lab9')));
    await openBoard(page, ui.fleet.board.url, BOARD_TOKEN);
    await card(page, 'lab9').getByRole('link', { name: /lab9/ }).first().click();
    await page.getByRole('heading', { level: 1, name: 'lab9' }).waitFor();
    // A board up for seconds: 24 h would be one point at its right edge; 1 h shows them.
    await expect
      .poll(() => page.getByRole('button', { name: '1h' }).getAttribute('aria-pressed'))
      .toBe('true');
    await expect.poll(() => new URL(page.url()).searchParams.get('range')).toBe('1h');
    await page.locator('.chart canvas').first().waitFor();
    // The top bar: language and sign-out, and the title leads back to the board.
    await page.getByRole('combobox', { name: 'Language' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await page.locator('.top-bar .app-title a').click();
    await page.getByTestId('summary').waitFor();
  });

  it('speaks the page language: the dialog in German', async () => {
    const { page } = ui;
    await openBoard(page, ui.fleet.board.url, BOARD_TOKEN);
    await page.getByRole('combobox', { name: 'Language' }).selectOption('de');
    await page.getByRole('button', { name: 'Maschine hinzufügen' }).click();
    const dialog = page.getByRole('dialog', { name: 'Maschine hinzufügen' });
    await dialog.getByLabel('Name der Maschine').fill('lab8');
    await dialog.getByRole('button', { name: 'Befehl erzeugen' }).click();
    await expect.poll(() => dialog.getByRole('status').textContent()).toContain('Warte auf lab8');
    await dialog.getByRole('button', { name: 'Schließen' }).click();
  });
});

import { createHash } from 'node:crypto';
import { dirname } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { timedKeyProof } from '../src/shared/wire/key-proof.js';
import { BOARD_TOKEN, card, openBoard, reportBody, useBrowserPage } from './helpers/browser.js';
import { pseudoLanguage, untranslated } from './helpers/pseudo-language.js';
import { tempDir } from './helpers/tmp.js';

const AGENT = 'export const agent = "served";\n';
const SERVED = createHash('sha256').update(AGENT).digest('hex');
const OLD = 'e'.repeat(64);
const LAB1_KEY = 'ui-update-lab1-key-3b7d9f1a'; // secret-scan: key

/** Updates from the board: the card's badge and button, and "Update all". */
describe('UI: agent updates', () => {
  const dir = tempDir('panoptes-ui-update-');
  const files = dirname(dir.write('agent-files/panoptes-agent.mjs', AGENT));
  const ui = useBrowserPage({
    dir,
    fleet: {
      configured: [],
      board: { agent_files: files, announced_keys: { lab1: LAB1_KEY } },
      lang: { zz: pseudoLanguage() },
    },
    page: { viewport: { width: 1400, height: 1000 } },
  });

  /**
   * The test plays an announcing machine that runs the agent file `sha`; lab1 proves its key
   * (a verified machine: only such and configured ones are in "Update all").
   */
  const report = (name: string, sha: string, updates: 'on' | 'off', more: object = {}) => {
    const location = `http://127.0.0.1:1/${name}`;
    const at = new Date().toISOString();
    const proof =
      name === 'lab1'
        ? { key_proof_at: at, key_proof: timedKeyProof(LAB1_KEY, name, location, at) }
        : {};
    return ui.fleet.report({
      ...reportBody(name, location, []),
      interval_s: 60,
      updates,
      agent_file: 'panoptes-agent.mjs',
      agent_sha256: sha,
      ...proof,
      ...more,
    });
  };
  const journal = async () => {
    const r = await fetch(`${ui.fleet.board.url}/api/journal`, {
      headers: { authorization: `Bearer ${BOARD_TOKEN}` },
    });
    const body = (await r.json()) as { entries: { op: string; target: string; outcome: string }[] };
    return body.entries.filter((e) => e.op === 'update').map((e) => `${e.target} ${e.outcome}`);
  };
  const open = async (page: Page) => {
    await openBoard(page, ui.fleet.board.url, BOARD_TOKEN);
    await expect.poll(() => card(page, 'lab3').count()).toBe(1);
  };

  beforeAll(async () => {
    await report('lab1', OLD, 'on');
    await report('lab2', SERVED, 'on');
    await report('lab3', OLD, 'off');
    // An unverified name: its card offers Update, "Update all" leaves it out.
    await report('lab4', OLD, 'on', {
      update_outcome: {
        state: 'rolled_back',
        to_sha256: SERVED,
        detail: 'the new file exited with code 3 <b>before</b> reporting',
        at: new Date().toISOString(),
      },
    });
  });

  it('shows "update available" where the sums differ, and Update only where updates are on', async () => {
    const { page } = ui;
    await open(page);
    const badge = (name: string) => card(page, name).getByTestId('update-available');
    await expect.poll(() => badge('lab1').count()).toBe(1);
    expect(await badge('lab2').count()).toBe(0);
    expect(await badge('lab3').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Update the agent on lab1' }).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Update the agent on lab3' }).count()).toBe(0);
    await expect
      .poll(() => page.getByRole('button', { name: 'Update the agent on lab4' }).count())
      .toBe(1);
    expect(await page.getByRole('button', { name: 'Update all (1)' }).count()).toBe(1);
  });

  it("shows a rolled-back update on the card, with the agent's reason as text", async () => {
    const { page } = ui;
    await open(page);
    const outcome = card(page, 'lab4').getByTestId('update-outcome');
    await expect
      .poll(() => outcome.textContent())
      .toBe(
        'Last update rolled back, the agent says: the new file exited with code 3 <b>before</b> reporting',
      );
    expect(await card(page, 'lab4').locator('b').count()).toBe(0);
    expect(await card(page, 'lab1').getByTestId('update-outcome').count()).toBe(0);
  });

  it('speaks the chosen language: every string of the badge, the button and Update all', async () => {
    const { page } = ui;
    await open(page);
    await page.getByRole('combobox', { name: 'Language' }).selectOption('zz');
    await expect.poll(() => page.locator('html').getAttribute('lang')).toBe('zz');
    await expect.poll(() => card(page, 'lab1').getByTestId('update-available').count()).toBe(1);
    expect(await untranslated(page, '.agent-update, .update-all')).toEqual([]);
    expect(await card(page, 'lab1').getByTestId('update-available').getAttribute('title')).toMatch(
      /^«.*»$/,
    );
  });

  it('Update reaches the board: the journal shows it queued for the next report', async () => {
    const { page } = ui;
    await open(page);
    await page.getByRole('button', { name: 'Update the agent on lab1' }).click();
    await expect
      .poll(() => card(page, 'lab1').getByRole('status').textContent())
      .toBe('Update asked for');
    await expect.poll(journal).toContain('lab1 queued');
    // Asked again while it is under way: the board's refusal is shown on the card.
    ui.watched.allow(/Failed to load resource: the server responded with a status of 409/);
    await page.reload();
    await expect.poll(() => card(page, 'lab1').count()).toBe(1);
    await page.getByRole('button', { name: 'Update the agent on lab1' }).click();
    await expect
      .poll(() => card(page, 'lab1').getByRole('alert').textContent())
      .toContain('already under way');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startBoard } from '../harness/processes.js';
import { type Received, Receiver } from '../src/board/notify/channels/receivers.js';
import { reportBody } from './helpers/browser.js';
import { eventually, Recorder, writeBoardConfig } from './helpers/fleet.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'disk-restart-board-token-71c4'; // secret-scan: token
const REG = 'disk-restart-registration-0e9b'; // secret-scan: token

interface HookEvent {
  event: string;
  machine: string;
  device?: string;
  recovered?: boolean;
}

const disk = (passed: boolean) => [
  { device: '/dev/sda', model: 'WDC', passed, temp_c: 30, power_on_hours: 9000 },
];

/**
 * A disk alert sent before a restart of the board is not sent again after it: a real board
 * process, stopped and started on the same store, an announced machine whose disk keeps
 * failing, and the notifications at a real webhook receiver.
 */
describe('disk alerts across a restart of the board', () => {
  const dir = tempDir('panoptes-disk-restart-');
  const hook = new Receiver();
  const http = new Recorder();
  let board: RunningProgram;
  let configDir = '';

  const report = async (passed: boolean) => {
    const r = await http.call(`${board.url}/api/report`, {
      method: 'POST',
      token: REG,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        ...reportBody('box1', 'http://box1.lab:8701', []),
        interval_s: 1,
        smart: disk(passed),
      }),
    });
    expect(r.status).toBe(200);
  };
  const diskEvents = (): HookEvent[] =>
    hook.requests
      .flatMap((r: Received) => (JSON.parse(r.body) as { events: HookEvent[] }).events)
      .filter((e) => e.event === 'disk_health');
  const sweptTwiceAfter = async (since: number) => {
    // The board's journal shows its sweeps only through what they did: wait a few sweeps.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, since + 1500 - Date.now())));
  };

  beforeAll(async () => {
    await hook.start();
    configDir = writeBoardConfig(dir, 'b', {
      board_token: TOKEN,
      registration_token: REG,
      sweep_interval: 0.2,
      stale_after: 60,
      notify: {
        timeout: 2,
        channels: [{ name: 'hook', url: `http://${hook.host}/panoptes` }],
        rules: [{ events: ['disk_health'], channels: ['hook'] }],
      },
    });
    board = await startBoard(configDir);
  });
  afterAll(async () => {
    await board?.stop();
    await hook.stop();
    dir.cleanup();
  });

  it('a failing disk alerted before a restart is not alerted again after it; its recovery is still sent', async () => {
    await report(false);
    await eventually(async () => (diskEvents().length > 0 ? true : undefined), 'the alert');
    expect(diskEvents()).toEqual([
      expect.objectContaining({ machine: 'box1', device: '/dev/sda' }),
    ]);

    await board.stop();
    board = await startBoard(configDir);
    const started = Date.now();
    // The disk still fails: the board sees it failing for the first time since its start.
    for (let i = 0; i < 4; i += 1) {
      await report(false);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    await sweptTwiceAfter(started);
    expect(diskEvents()).toHaveLength(1);

    // What was sent is known: the recovery goes out, and a new failure is a new alert.
    await report(true);
    await eventually(
      async () => (diskEvents().some((e) => e.recovered === true) ? true : undefined),
      'the recovery',
    );
    await report(false);
    await eventually(async () => (diskEvents().length === 3 ? true : undefined), 'a new alert');
    expect(diskEvents().map((e) => e.recovered === true)).toEqual([false, true, false]);
  });

  it('a disk that passes by the first report after a restart has its recovery sent, and a later failure is alerted', async () => {
    await board.stop();
    board = await startBoard(configDir);
    await report(true);
    await eventually(async () => (diskEvents().length === 4 ? true : undefined), 'the recovery');
    expect(diskEvents()[3]).toMatchObject({ device: '/dev/sda', recovered: true });
    await report(false);
    await eventually(async () => (diskEvents().length === 5 ? true : undefined), 'a new alert');
    expect(diskEvents()[4]?.recovered).toBeUndefined();
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startAgent, startBoard } from '../harness/processes.js';
import { Receiver } from '../src/board/notify/channels/receivers.js';
import { eventually, Recorder, writeAgentConfig, writeBoardConfig } from './helpers/fleet.js';
import { HWMON_FIXTURE, standInSmartctlEnv } from './helpers/machine-sources.js';
import { tempDir } from './helpers/tmp.js';

const BOARD_TOKEN = 'sources-board-e2e-token-71c3a9'; // secret-scan: token
const AGENT_TOKEN = 'sources-board-agent-token-4d8e2f'; // secret-scan: token
const KEY = 'sources-board-agent-key-9b6c1e'; // secret-scan: key

interface HookEvent {
  event: string;
  machine: string;
  device?: string;
  metric?: string;
  value?: number;
}

/**
 * From the machine's own sources to the board's notifications, /metrics and history, with real
 * programs: an agent reading the recorded hwmon tree and the stand-in smartctl (real smartctl's
 * recorded output, one disk failing), polled by a board with rules on disk health and on the
 * hottest sensor, sending to a webhook receiver.
 */
describe('temperatures and disk health from a real agent to the board', () => {
  const dir = tempDir('panoptes-sources-board-');
  const hook = new Receiver();
  const http = new Recorder();
  let agent: RunningProgram;
  let board: RunningProgram;
  const events = (): HookEvent[] =>
    hook.requests.flatMap((r) => (JSON.parse(r.body) as { events: HookEvent[] }).events);

  beforeAll(async () => {
    await hook.start();
    agent = await startAgent(
      writeAgentConfig(dir, 'disks', {
        name: 'disks',
        token: AGENT_TOKEN,
        board_key: KEY,
        data_dir: `${dir.path}/agent-data`,
        hwmon: HWMON_FIXTURE,
        sample_interval: 1,
      }),
      { env: standInSmartctlEnv({}) },
    );
    board = await startBoard(
      writeBoardConfig(dir, 'board', {
        board_token: BOARD_TOKEN,
        sweep_interval: 0.5,
        machines: [{ name: 'disks', url: agent.url, key: KEY }],
        notify: {
          timeout: 2,
          channels: [{ name: 'hook', url: `http://${hook.host}/panoptes` }],
          rules: [
            { events: ['disk_health'], channels: ['hook'] },
            { events: ['threshold'], channels: ['hook'], metric: 'temp', above: 44 },
          ],
        },
      }),
    );
  });
  afterAll(async () => {
    await board?.stop();
    await agent?.stop();
    await hook.stop();
    dir.cleanup();
  });

  it('the failing disk and the hottest sensor are notified', async () => {
    const disk = await eventually(
      async () => events().find((e) => e.event === 'disk_health'),
      'the disk_health event',
    );
    expect(disk).toMatchObject({ machine: 'disks', device: '/dev/sdc' });
    // Only the recorded failing disk: the NVMe and the SATA disk pass.
    expect(
      events()
        .filter((e) => e.event === 'disk_health')
        .map((e) => e.device),
    ).toEqual(['/dev/sdc']);
    const hot = await eventually(
      async () => events().find((e) => e.event === 'threshold' && e.metric === 'temp'),
      'the temp threshold event',
    );
    // The fixture's hottest sensor: coretemp Package id 0 and Core 3, 45 °C.
    expect(hot).toMatchObject({ machine: 'disks', value: 45 });
  });

  it('/metrics and the history carry the hottest sensor', async () => {
    const metrics = await http.call(`${board.url}/metrics`, { token: BOARD_TOKEN });
    expect(metrics.text).toMatch(
      /^panoptes_machine_temp_max_celsius\{name="disks",origin="configured"\} 45$/m,
    );
    await eventually(async () => {
      const r = await http.call(`${board.url}/api/machines/disks/history?range=1h&points=60`, {
        token: BOARD_TOKEN,
      });
      const series = (r.json as { series: Record<string, (number | null)[]> }).series;
      return series.temp_max?.includes(45) ? true : undefined;
    }, 'temp_max in the history');
  });
});

import {
  type DeviceAnswer,
  deviceArgs,
  parseDeviceAnswer,
  parseScan,
  SCAN_ARGS,
  type SmartEntry,
  SmartParseError,
  smartFromAnswers,
  unreadable,
} from '../domain/smart.js';
import type { SourceRead, SourceReader } from '../domain/source-watch.js';
import { trackedSpawner } from './node-spawner.js';
import {
  findExecutable,
  firstLine,
  TOOL_OUTPUT_MAX_BYTES,
  type ToolRun,
  ToolRunner,
} from './run-tool.js';

/**
 * Disk health with the smartctl found on the agent's PATH: `smartctl --scan-open --json`, then
 * `smartctl -a --json -n standby -d TYPE DEV` for each disk, one after the other, the whole read
 * within the time-out. Never through a shell; the agent's environment without its secrets, in
 * the C locale. No smartctl, or no disk: absent.
 */
export function nodeSmartReader(env: NodeJS.ProcessEnv): SourceReader<SmartEntry[]> {
  const runner = new ToolRunner(trackedSpawner(env).spawn);
  let cancelled = false;
  return {
    async read(timeoutMs) {
      cancelled = false;
      const smartctl = await findExecutable('smartctl', env.PATH ?? '');
      if (smartctl === null) return { kind: 'absent' };
      const deadline = Date.now() + timeoutMs;
      const late: SourceRead<SmartEntry[]> = {
        kind: 'failed',
        reason: `smartctl did not answer within ${timeoutMs} ms`,
      };

      const scan = await runner.run([smartctl, ...SCAN_ARGS], timeoutMs);
      if (scan.kind === 'missing') return { kind: 'absent' };
      if (scan.kind === 'timed-out') return late;
      if (scan.kind !== 'exited') return notRun(scan);
      if (scan.code === null || unreadable(scan.code)) return exitFailure(scan, '--scan-open');
      let devices: ReturnType<typeof parseScan>;
      try {
        devices = parseScan(scan.stdout);
      } catch (error) {
        if (error instanceof SmartParseError) return { kind: 'failed', reason: error.message };
        throw error;
      }

      const answers: DeviceAnswer[] = [];
      for (const device of devices) {
        if (device.openError !== null) {
          answers.push({ kind: 'unreadable', device: device.device, reason: device.openError });
          continue;
        }
        const left = deadline - Date.now();
        if (cancelled || left <= 0) return late;
        const run = await runner.run([smartctl, ...deviceArgs(device)], left);
        if (run.kind === 'timed-out' || cancelled) return late;
        if (run.kind !== 'exited') return notRun(run);
        if (run.code === null) return exitFailure(run, `-a ${device.name}`);
        answers.push(parseDeviceAnswer(device.device, run.stdout, run.code));
      }
      return smartFromAnswers(answers);
    },
    cancel() {
      cancelled = true;
      runner.cancel();
    },
  };
}

function notRun(run: Exclude<ToolRun, { kind: 'exited' | 'timed-out' }>): SourceRead<SmartEntry[]> {
  if (run.kind === 'missing') return { kind: 'absent' };
  if (run.kind === 'too-much')
    return { kind: 'failed', reason: `smartctl printed more than ${TOOL_OUTPUT_MAX_BYTES} bytes` };
  return { kind: 'failed', reason: `smartctl: ${run.reason}` };
}

/** A run that said nothing usable: how it ended and the first thing it said. */
function exitFailure(
  run: Extract<ToolRun, { kind: 'exited' }>,
  what: string,
): SourceRead<SmartEntry[]> {
  const how =
    run.code === null ? `ended by ${String(run.signal)}` : `exited with status ${run.code}`;
  const said = firstLine(run.stderr) ?? messageOf(run.stdout);
  return { kind: 'failed', reason: `smartctl ${what} ${how}${said === null ? '' : `: ${said}`}` };
}

/** The first of smartctl's JSON messages, when its output is JSON with one. */
function messageOf(stdout: string): string | null {
  try {
    const first = (JSON.parse(stdout) as { smartctl?: { messages?: { string?: unknown }[] } })
      .smartctl?.messages?.[0]?.string;
    return typeof first === 'string' ? first : null;
  } catch {
    return null;
  }
}

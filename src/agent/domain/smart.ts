import type { Static } from '../../shared/typebox.js';
import { safeText } from '../../shared/wire/free-text.js';
import { SMART_MAX, type SmartView } from '../../shared/wire/machine-now.js';
import type { SourceRead } from './source-watch.js';

export type SmartEntry = Static<typeof SmartView>;

/** A disk as `smartctl --scan-open --json` lists it. */
export interface ScannedDevice {
  /** What the overview calls it: its name, or its info name when two share a name (RAID). */
  device: string;
  /** What smartctl is given: the name and the `-d` type. */
  name: string;
  type: string;
  /** Why smartctl could not open it while scanning (no rights), null when it could. */
  openError: string | null;
}

/** Thrown when smartctl's output cannot be read; its message is the reason shown. */
export class SmartParseError extends Error {}

/** smartctl's argv (after the program) for the list of disks. */
export const SCAN_ARGS: readonly string[] = ['--scan-open', '--json'];

/**
 * smartctl's argv (after the program) for one disk: everything, as JSON, of the type the scan
 * found, and nothing from a disk that sleeps (reading it would spin it up).
 */
export function deviceArgs(device: ScannedDevice): string[] {
  return ['-a', '--json', '-n', 'standby', '-d', device.type, device.name];
}

/**
 * smartctl's exit status is a bit mask: bit 0, the command line did not parse; bit 1, the
 * device could not be opened or identified (or it sleeps, with `-n`). The other bits (2: a
 * SMART command failed; 3: "DISK FAILING"; 4–7: attributes and logs) come with a full answer.
 */
export function unreadable(exitStatus: number): boolean {
  return (exitStatus & 0b11) !== 0;
}

function json(stdout: string, what: string): Record<string, unknown> {
  let data: unknown;
  try {
    data = JSON.parse(stdout);
  } catch {
    throw new SmartParseError(`smartctl ${what} printed JSON that does not parse`);
  }
  if (!isObject(data))
    throw new SmartParseError(`smartctl ${what} printed JSON that is not an object`);
  return data;
}

/** The disks of `smartctl --scan-open --json` (none: no `devices`), at most SMART_MAX. */
export function parseScan(stdout: string): ScannedDevice[] {
  const data = json(stdout, '--scan-open');
  const list = data.devices ?? [];
  if (!Array.isArray(list))
    throw new SmartParseError('smartctl --scan-open printed devices that are not a list');
  const found: (ScannedDevice & { infoName: string | null })[] = [];
  for (const d of list) {
    if (!isObject(d) || typeof d.name !== 'string' || typeof d.type !== 'string') continue;
    // Handed to smartctl as arguments: a path, and a type of letters, digits and ",+_-".
    if (!d.name.startsWith('/') || !/^[A-Za-z0-9_,+.-]+$/.test(d.type)) continue;
    found.push({
      device: d.name,
      name: d.name,
      type: d.type,
      openError: typeof d.open_error === 'string' ? d.open_error : null,
      infoName: typeof d.info_name === 'string' ? d.info_name : null,
    });
  }
  // Disks behind one controller share a name (/dev/bus/0 -d megaraid,N): the info name
  // ("/dev/bus/0 [megaraid_disk_00]") tells them apart.
  const shared = (name: string) => found.filter((d) => d.name === name).length > 1;
  return found
    .slice(0, SMART_MAX)
    .map(({ infoName, ...d }) =>
      shared(d.name) && infoName !== null ? { ...d, device: infoName } : d,
    );
}

/** What one disk's `smartctl -a --json` answer gave. */
export type DeviceAnswer =
  | { kind: 'ok'; value: SmartEntry }
  | { kind: 'asleep'; device: string }
  | { kind: 'unreadable'; device: string; reason: string };

/**
 * One disk from `smartctl -a --json` and its exit status: its model, health verdict,
 * temperature and hours powered on (each null when the answer lacks it).
 */
export function parseDeviceAnswer(
  device: string,
  stdout: string,
  exitStatus: number,
): DeviceAnswer {
  let data: Record<string, unknown>;
  try {
    data = json(stdout, `-a ${device}`);
  } catch (error) {
    const why = error instanceof SmartParseError ? error.message : 'unreadable output';
    return {
      kind: 'unreadable',
      device,
      reason: unreadable(exitStatus) ? `exit status ${exitStatus}` : why,
    };
  }
  if (unreadable(exitStatus)) {
    const messages = messagesOf(data);
    if (messages.some((m) => /^Device is in \S+ mode/.test(m))) return { kind: 'asleep', device };
    return { kind: 'unreadable', device, reason: messages[0] ?? `exit status ${exitStatus}` };
  }
  const status = isObject(data.smart_status) ? data.smart_status.passed : undefined;
  const temp = isObject(data.temperature) ? data.temperature.current : undefined;
  const hours = isObject(data.power_on_time) ? data.power_on_time.hours : undefined;
  return {
    kind: 'ok',
    value: {
      device: line(device, 255) ?? '?',
      model: typeof data.model_name === 'string' ? line(data.model_name, 255) : null,
      passed: typeof status === 'boolean' ? status : null,
      temp_c: typeof temp === 'number' && Number.isFinite(temp) ? temp : null,
      power_on_hours:
        typeof hours === 'number' && Number.isSafeInteger(hours) && hours >= 0 ? hours : null,
    },
  };
}

/**
 * The overview's `smart` from every disk's answer: the disks read, in scan order. When disks
 * were found but none could be read (most often: the agent lacks the rights), the read failed,
 * naming the first disk and why; disks that sleep are neither read nor a failure.
 */
export function smartFromAnswers(answers: readonly DeviceAnswer[]): SourceRead<SmartEntry[]> {
  if (answers.length === 0) return { kind: 'absent' };
  const read = answers.flatMap((a) => (a.kind === 'ok' ? [a.value] : []));
  const failed = answers.find((a) => a.kind === 'unreadable');
  if (
    read.length === 0 &&
    failed?.kind === 'unreadable' &&
    !answers.some((a) => a.kind === 'asleep')
  )
    return { kind: 'failed', reason: `smartctl could not read ${failed.device}: ${failed.reason}` };
  return { kind: 'ok', value: read.slice(0, SMART_MAX) };
}

/** The texts of smartctl's own messages (`smartctl.messages[].string`), errors first. */
function messagesOf(data: Record<string, unknown>): string[] {
  const block = isObject(data.smartctl) ? data.smartctl.messages : undefined;
  if (!Array.isArray(block)) return [];
  const all = block.filter(isObject);
  const text = (m: Record<string, unknown>) =>
    typeof m.string === 'string' ? [m.string.trim()] : [];
  return [
    ...all.filter((m) => m.severity === 'error'),
    ...all.filter((m) => m.severity !== 'error'),
  ].flatMap(text);
}

function line(text: string, max: number): string | null {
  const clean = safeText(text.trim());
  return clean === '' ? null : clean.slice(0, max);
}

function isObject(x: unknown): x is Record<string, unknown> {
  return x !== null && typeof x === 'object' && !Array.isArray(x);
}

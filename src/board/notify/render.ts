import type { NotifyEvent, OutgoingMessage } from './event.js';
import { type Escape, oneLine } from './markup.js';

/** Lines a message's text lists at most; the rest is counted ("… and 940 more"). */
export const LINES_MAX = 100;

/** How long, in words: 3 h 5 min, 4 min 10 s, 12 s. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (d > 0) return h > 0 ? `${d} d ${h} h` : `${d} d`;
  if (h > 0) return m > 0 ? `${h} h ${m} min` : `${h} h`;
  if (m > 0) return sec > 0 ? `${m} min ${sec} s` : `${m} min`;
  return `${sec} s`;
}

function percent(value: number): string {
  return `${Math.round(value * 100)} %`;
}

/** Bytes a second in words: 850 B/s, 12.3 kB/s, 1.2 GB/s (powers of 1000). */
export function byteRate(bytes: number): string {
  const units = ['B/s', 'kB/s', 'MB/s', 'GB/s', 'TB/s'];
  let v = Math.max(0, bytes);
  let u = 0;
  while (v >= 1000 && u < units.length - 1) {
    v /= 1000;
    u += 1;
  }
  return `${u === 0 ? Math.round(v) : v.toFixed(1)} ${units[u]}`;
}

/** A threshold's value in the metric's unit: a share, a load, °C or bytes a second. */
function metricText(metric: string | undefined, value: number): string {
  if (metric === 'temp') return `${Math.round(value * 10) / 10} °C`;
  if (metric === 'net_rx' || metric === 'net_tx') return byteRate(value);
  return percent(value);
}

function metricValue(e: NotifyEvent, value: number | undefined): string {
  if (value === undefined) return '?';
  return e.metric === 'load' ? value.toFixed(2) : metricText(e.metric, value);
}

/**
 * The default line for one event. Every value from the event goes through `escapeText` (the channel
 * kind's, markup.ts) after its line breaks are shown as ⏎; the board's own words do not.
 */
export function defaultLine(e: NotifyEvent, escapeText: Escape): string {
  const t = (value: string) => escapeText(oneLine(value));
  const machine = t(e.machine);
  const reason = e.reason === undefined || e.reason === null ? '' : `: ${t(e.reason)}`;
  const since = e.since === undefined ? '?' : t(e.since);
  switch (e.event) {
    case 'down':
      return e.reminder !== undefined && e.since !== undefined
        ? `✖ ${machine} still down (since ${since})${reason}`
        : `✖ ${machine} is down${reason}`;
    case 'up':
      return e.duration_s === undefined
        ? `▲ ${machine} is up again`
        : `▲ ${machine} is up again after ${duration(e.duration_s)} down`;
    case 'late':
      return `◷ ${machine} is late${reason}`;
    case 'bell':
      return `! ${machine}: session ${t(e.session ?? '?')} ${e.why === 'error' ? 'reports an error' : e.why === 'finished' ? 'finished' : 'needs attention'}${e.message ? `: ${t(e.message)}` : ''}`;
    case 'threshold': {
      const metric = t(e.metric ?? '?');
      const what = e.path === undefined ? metric : `${metric} ${t(e.path)}`;
      const still = e.reminder !== undefined ? ' still' : '';
      return `⚠ ${machine}${still} ${what} at ${metricValue(e, e.value)} (above ${metricValue(e, e.limit)}) since ${since}`;
    }
    case 'action_failed':
      return `✖ ${machine}: ${t(e.action ?? 'action')} failed${reason}`;
    case 'container':
      return containerLine(e, machine, t);
    case 'disk_health': {
      const disk = `disk ${t(e.device ?? '?')}`;
      if (e.recovered === true)
        return `▲ ${machine}: ${disk} passes its SMART health check again${after(e)}`;
      return e.reminder !== undefined
        ? `✖ ${machine}: ${disk} still fails its SMART health check (since ${since})`
        : `✖ ${machine}: ${disk} fails its SMART health check`;
    }
    case 'check':
      return checkLine(e, t);
    case 'test':
      return `Test message from Panoptes${e.message ? `: ${t(e.message)}` : ''}`;
  }
}

/** " after 3 min" for a recovery that knows how long its episode lasted. */
function after(e: NotifyEvent): string {
  return e.duration_s === undefined ? '' : ` after ${duration(e.duration_s)}`;
}

/** A check's line: its name, its state (or its new certificate), the failing runners' detail. */
function checkLine(e: NotifyEvent, t: (value: string) => string): string {
  const check = `check ${t(e.check ?? '?')}`;
  const failing = (e.runners ?? []).map((r) => `${t(r.machine)}: ${t(r.detail)}`).join('; ');
  if (e.cert_changed !== undefined) return `⚠ ${check}: ${t(e.cert_changed)}`;
  if (e.state === 'down') return `✖ ${check} is down${failing === '' ? '' : ` (${failing})`}`;
  if (e.state === 'up')
    return `▲ ${check} is up again${failing === '' ? '' : ` (still failing: ${failing})`}`;
  return `? ${check} is unknown: no runner's result counts`;
}

function containerLine(e: NotifyEvent, machine: string, t: (value: string) => string): string {
  const container = `container ${t(e.container ?? '?')}`;
  const unhealthy = e.problem === 'unhealthy';
  if (e.recovered === true)
    return unhealthy
      ? `▲ ${machine}: ${container} is no longer unhealthy${after(e)}`
      : `▲ ${machine}: ${container} is running again${after(e)}`;
  const what = unhealthy ? 'unhealthy' : 'stopped';
  if (e.reminder !== undefined)
    return `✖ ${machine}: ${container} still ${what} (since ${e.since === undefined ? '?' : t(e.since)})`;
  if (unhealthy) return `✖ ${machine}: ${container} is unhealthy`;
  return `✖ ${machine}: ${container} stopped${e.reason === undefined ? '' : ` (${t(e.reason)})`}`;
}

const PLACEHOLDER = /\{\{\s*([a-z_]+)\s*\}\}/g;

/**
 * Fills a template's `{{name}}` placeholders from the event (any of its members, plus `text`:
 * the default line, and `duration`: a recovery's duration in words). Unknown names are empty:
 * a template is text, never code. The operator's text is kept as written; each value put into
 * it goes through `escapeText` (as in defaultLine).
 */
export function fill(template: string, e: NotifyEvent, escapeText: Escape): string {
  return template.replace(PLACEHOLDER, (_m, name: string) => {
    if (name === 'text') return defaultLine(e, escapeText);
    if (name === 'duration') return e.duration_s === undefined ? '' : duration(e.duration_s);
    // The board's link: escaping would break it, and its machine part is percent-encoded.
    if (name === 'url') return e.url === undefined ? '' : oneLine(e.url);
    if (name === 'runners')
      return (e.runners ?? [])
        .map((r) => escapeText(oneLine(`${r.machine}: ${r.detail}`)))
        .join('; ');
    const value = (e as unknown as Record<string, unknown>)[name];
    if (value === undefined || value === null) return '';
    return typeof value === 'number' &&
      (name === 'value' || name === 'limit') &&
      e.metric !== 'load'
      ? metricText(e.metric, value)
      : escapeText(oneLine(String(value)));
  });
}

const LABELS: Record<NotifyEvent['event'], string> = {
  down: 'down',
  up: 'up',
  late: 'late',
  bell: 'bell',
  threshold: 'threshold',
  action_failed: 'failed action',
  container: 'container stopped',
  disk_health: 'disk failing',
  check: 'check',
  test: 'test',
};

/** What one event counts as in a title. */
function labelOf(e: NotifyEvent): string {
  if (e.event === 'down' && e.reminder !== undefined) return 'still down';
  if (e.event === 'container') {
    if (e.recovered === true) return 'container back';
    if (e.problem === 'unhealthy') return 'container unhealthy';
  }
  if (e.event === 'disk_health' && e.recovered === true) return 'disk passing';
  if (e.event === 'check')
    return e.cert_changed !== undefined ? 'check certificate changed' : `check ${e.state ?? ''}`;
  return LABELS[e.event];
}

/**
 * The title: what the message holds, counted by event ("Panoptes: 3 down, 1 up"). Every service
 * that shows a title shows it as plain text, so a machine's name in it only keeps to one line.
 */
export function titleOf(events: readonly NotifyEvent[]): string {
  const counts = new Map<string, number>();
  for (const e of events) {
    const label = labelOf(e);
    counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  const parts = [...counts].map(([label, n]) =>
    n === 1 && events.length === 1 ? label : `${n} ${label}`,
  );
  // One event names its machine (a test message has none).
  const only = events.length === 1 ? events[0] : undefined;
  if (only?.event === 'check' && only.check !== undefined)
    return `Panoptes: ${oneLine(only.check)} ${parts[0] ?? ''}`;
  if (only !== undefined && only.machine !== '')
    return `Panoptes: ${oneLine(only.machine)} ${parts[0] ?? ''}`;
  return `Panoptes: ${parts.join(', ')}`;
}

/**
 * Everything that fired for one channel in one sweep as ONE message: a title and one line per
 * event (the channel's template, if any), at most LINES_MAX lines listed. `escapeText` is the
 * channel's (ParsedChannel.escape): machine text in the lines is escaped for its service.
 */
export function renderMessage(
  events: NotifyEvent[],
  template: string | null,
  boardUrl: string | null,
  escapeText: Escape,
): OutgoingMessage {
  const lines: string[] = [];
  const shown = Math.min(events.length, LINES_MAX);
  for (let i = 0; i < shown; i++) {
    const e = events[i] as NotifyEvent;
    lines.push(template === null ? defaultLine(e, escapeText) : fill(template, e, escapeText));
  }
  if (events.length > shown) lines.push(`… and ${events.length - shown} more`);
  if (boardUrl !== null) lines.push(boardUrl);
  return { title: titleOf(events), text: lines.join('\n'), boardUrl, events };
}

/** Cuts a text to `max` characters for services with a limit, saying that it was cut. */
export function fitText(text: string, max: number): string {
  if (text.length <= max) return text;
  const tail = '\n… (cut)';
  return text.slice(0, max - tail.length) + tail;
}

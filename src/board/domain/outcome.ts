import type { QueuedAction } from './action-queue.js';

/** Longest client-supplied text that goes into a journal entry or a log line. */
export const CLIENT_TEXT_MAX = 200;

/** `text` cut to `max` characters, with `…` where it was cut. */
export function clip(text: string, max = CLIENT_TEXT_MAX): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * Through what a request came when not through the HTTP API (MCP): named after the detail of
 * the journal entries it makes. `who` stays the token that opened it.
 */
export type Via = 'MCP';

/** A journal entry's detail, naming what the request came through (`via`), if anything. */
export function noted(detail: string, via: Via | undefined): string {
  return via === undefined ? detail : `${detail} (via ${via})`;
}

/** name/what/action of a queued action, as the journal names it. */
export function targetOf(a: QueuedAction): string {
  return `${a.name}/${a.what}/${a.action}`;
}

/** done, failed or refused, from what the machine answered. */
export function outcomeOf(status: number, body: unknown): 'done' | 'failed' | 'refused' {
  if (status >= 200 && status < 300) {
    const ok = (body as { ok?: unknown } | null)?.ok;
    return ok === false ? 'failed' : 'done';
  }
  return status >= 400 && status < 500 ? 'refused' : 'failed';
}

/** A short description of a machine's answer for the journal. */
export function summary(body: unknown): string {
  if (body !== null && typeof body === 'object') {
    const b = body as Record<string, unknown>;
    if (typeof b.detail === 'string') return clip(b.detail);
    if (typeof b.ok === 'boolean') {
      const code =
        b.exit_code === null || b.exit_code === undefined ? '' : ` (exit ${String(b.exit_code)})`;
      return `${b.ok ? 'ok' : 'not ok'}${code}`;
    }
  }
  return 'answered';
}

import { createHmac } from 'node:crypto';
import type { OutgoingMessage } from '../event.js';
import { asIs } from '../markup.js';
import type { ChannelKind } from './types.js';
import { secretsOf } from './url-parts.js';

/** The generic webhook's body: the text, the board's address and every event. */
export function webhookBody(message: OutgoingMessage): string {
  return JSON.stringify({
    text: message.text,
    board_url: message.boardUrl,
    events: message.events,
  });
}

/** `sha256=<hex HMAC-SHA256 of the body>`, as X-Panoptes-Signature carries it. */
export function signature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * http(s)://… — the generic JSON webhook: POST application/json {text, board_url, events};
 * with `secret:` in the channel's config, X-Panoptes-Signature signs the body.
 */
export const webhook: ChannelKind<'webhook'> = {
  kind: 'webhook',
  schemes: ['http', 'https'],
  parse(url, options) {
    const target = url.href;
    const secret = options.secret;
    return {
      kind: 'webhook',
      // Plain JSON text; the events array carries the values as data.
      escape: asIs,
      secrets: secretsOf(url, ...(secret === undefined ? [] : [secret])),
      build(message) {
        const body = webhookBody(message);
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (secret !== undefined) headers['x-panoptes-signature'] = signature(secret, body);
        return { type: 'http', requests: [{ method: 'POST', url: target, headers, body }] };
      },
    };
  },
};

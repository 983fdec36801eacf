import { type Escape, unpairStyleMarkers, zeroWidthAfter } from '../markup.js';
import { fitText } from '../render.js';
import { type ChannelKind, ChannelUrlError } from './types.js';
import { hostOf, jsonPost, param, schemeOf, secretsOf } from './url-parts.js';

const MAX = 4096;

/**
 * Google Chat's text format has no escape: a zero-width space after `<` keeps `<users/all>` and
 * `<url|label>` from being read, one after `]` keeps `[label](url)` apart (apps that use
 * Markdown syntax), and style markers are kept from pairing.
 */
const escapeGoogleChat: Escape = (text) => unpairStyleMarkers(zeroWidthAfter(text, /[<\]]/g));

/**
 * googlechat://chat.googleapis.com/v1/spaces/{space}/messages?key=…&token=… (the webhook URL
 * with its scheme replaced) → POST https://…/messages?key=…&token=… {"text"}
 * (https://developers.google.com/workspace/chat/quickstart/webhooks).
 */
export const googlechat: ChannelKind<'googlechat'> = {
  kind: 'googlechat',
  schemes: ['googlechat', 'hangouts'],
  parse(url) {
    if (param(url, 'key') === null || param(url, 'token') === null) {
      throw new ChannelUrlError(
        'googlechat:// needs the webhook address with its key= and token= parameters',
      );
    }
    const base = `${schemeOf(url)}://${hostOf(url)}`;
    const query = new URLSearchParams();
    for (const [k, v] of url.searchParams) {
      if (!['scheme', 'disabletls'].includes(k.toLowerCase())) query.append(k, v);
    }
    const target = `${base}${url.pathname}?${query.toString()}`;
    return {
      kind: 'googlechat',
      escape: escapeGoogleChat,
      secrets: secretsOf(url),
      build(message) {
        return {
          type: 'http',
          requests: [
            jsonPost(
              target,
              { text: fitText(message.text, MAX) },
              { 'content-type': 'application/json; charset=UTF-8' },
            ),
          ],
        };
      },
    };
  },
};

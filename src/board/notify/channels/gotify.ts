import { asIs } from '../markup.js';
import { type ChannelKind, ChannelUrlError } from './types.js';
import { hostOf, intParam, jsonPost, param, schemeOf, secretsOf, segments } from './url-parts.js';

/**
 * gotify://host[:port][/subpath]/{app token}[?priority=0-10&title=…&disabletls=yes] → POST
 * https://host[/subpath]/message {"title", "message", "priority"} with the token in the
 * X-Gotify-Key header, not the query, so no proxy log sees it (https://gotify.net/api-docs).
 */
export const gotify: ChannelKind<'gotify'> = {
  kind: 'gotify',
  schemes: ['gotify'],
  parse(url) {
    const parts = segments(url);
    const token = parts.pop();
    if (token === undefined) throw new ChannelUrlError('gotify:// needs gotify://host/token');
    const base = `${schemeOf(url)}://${hostOf(url)}${parts.map((p) => `/${encodeURIComponent(p)}`).join('')}`;
    const priority = intParam(url, 'priority', 0, 10);
    const title = param(url, 'title');
    return {
      kind: 'gotify',
      // Plain text: no client::display extras (Markdown) are sent.
      escape: asIs,
      secrets: secretsOf(url),
      build(message) {
        return {
          type: 'http',
          requests: [
            jsonPost(
              `${base}/message`,
              { title: title ?? message.title, message: message.text, priority: priority ?? 5 },
              { 'x-gotify-key': token },
            ),
          ],
        };
      },
    };
  },
};

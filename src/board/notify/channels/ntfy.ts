import { asIs } from '../markup.js';
import { fitText } from '../render.js';
import { type ChannelKind, ChannelUrlError } from './types.js';
import {
  decode,
  hostOf,
  intParam,
  listParam,
  param,
  schemeOf,
  secretsOf,
  segments,
} from './url-parts.js';

/** ntfy's message limit (larger ones become attachments). */
const MAX = 4096;

/**
 * ntfy://[user:password@]host[:port]/topic[?priority=1-5&tags=a,b&title=…&scheme=http] —
 * publishes by POST to {scheme}://host/topic with the text as body and Title, Priority, Tags
 * and Click headers (https://docs.ntfy.sh/publish/). A password without a user is an access
 * token (Authorization: Bearer); user and password go as Basic.
 */
export const ntfy: ChannelKind<'ntfy'> = {
  kind: 'ntfy',
  schemes: ['ntfy'],
  parse(url) {
    const topic = segments(url).join('/');
    if (topic === '') throw new ChannelUrlError('ntfy:// needs a topic: ntfy://host/topic');
    const base = `${schemeOf(url)}://${hostOf(url)}`;
    const user = decode(url.username);
    const password = decode(url.password);
    const priority = intParam(url, 'priority', 1, 5);
    const tags = listParam(url, 'tags');
    const title = param(url, 'title');
    let auth: string | null = null;
    if (password !== '') {
      auth =
        user === ''
          ? `Bearer ${password}`
          : `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    }
    return {
      kind: 'ntfy',
      // Plain text: no Markdown header is sent.
      escape: asIs,
      secrets: secretsOf(url),
      build(message) {
        // Header values must be ASCII: anything else is dropped from the title, not the body.
        const headers: Record<string, string> = {
          'content-type': 'text/plain; charset=utf-8',
          title: (title ?? message.title).replace(/[^\x20-\x7e]/g, ''),
        };
        if (priority !== null) headers.priority = String(priority);
        if (tags.length > 0) headers.tags = tags.join(',');
        if (message.boardUrl !== null) headers.click = message.boardUrl;
        if (auth !== null) headers.authorization = auth;
        return {
          type: 'http',
          requests: [
            {
              method: 'POST',
              url: `${base}/${topic.split('/').map(encodeURIComponent).join('/')}`,
              headers,
              body: fitText(message.text, MAX),
            },
          ],
        };
      },
    };
  },
};

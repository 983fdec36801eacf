import { markdownChat } from '../markup.js';
import { fitText } from '../render.js';
import { type ChannelKind, ChannelUrlError } from './types.js';
import { decode, hostOf, jsonPost, param, schemeOf, secretsOf, segments } from './url-parts.js';

const MAX = 16_000;

/**
 * mattermost://[username@]host[:port]/token[/channel] → POST https://host/hooks/{token}
 * {"text", "username"?, "channel"?} (https://developers.mattermost.com/integrate/webhooks/incoming/).
 * The text is Markdown: machine text has its markers behind backslashes and its `@` mentions
 * (`@channel`, `@all`, `@here`, `@user`) muted.
 */
export const mattermost: ChannelKind<'mattermost'> = {
  kind: 'mattermost',
  schemes: ['mattermost'],
  parse(url) {
    const [token, channel] = segments(url);
    if (token === undefined)
      throw new ChannelUrlError('mattermost:// needs mattermost://host/token');
    const base = `${schemeOf(url)}://${hostOf(url)}`;
    const username = decode(url.username);
    const icon = param(url, 'icon');
    return {
      kind: 'mattermost',
      escape: markdownChat,
      secrets: secretsOf(url),
      build(message) {
        const body: Record<string, string> = { text: fitText(message.text, MAX) };
        if (username !== '') body.username = username;
        if (channel !== undefined) body.channel = channel;
        if (icon !== null) body[/^https?:/.test(icon) ? 'icon_url' : 'icon_emoji'] = icon;
        return {
          type: 'http',
          requests: [jsonPost(`${base}/hooks/${encodeURIComponent(token)}`, body)],
        };
      },
    };
  },
};

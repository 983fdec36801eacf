import { markdownChat } from '../markup.js';
import { fitText } from '../render.js';
import { type ChannelKind, ChannelUrlError } from './types.js';
import { apiBase, decode, jsonPost, param, secretsOf } from './url-parts.js';

/** Discord's limit on a message's content. */
const MAX = 2000;

/**
 * discord://token@webhook-id[?username=…] → POST https://discord.com/api/webhooks/{id}/{token}
 * {"content", "username"?} (Execute Webhook, https://discord.com/developers/docs/resources/webhook).
 * `host=` (and `scheme=http`) sends to another host. The content is Markdown: machine text has
 * its markers behind backslashes and its `@` mentions muted, and `allowed_mentions: {parse: []}`
 * lets no message ping anyone (https://discord.com/developers/docs/resources/message#allowed-mentions-object).
 */
export const discord: ChannelKind<'discord'> = {
  kind: 'discord',
  schemes: ['discord'],
  parse(url) {
    const token = decode(url.username);
    const id = decode(url.hostname);
    if (token === '' || id === '')
      throw new ChannelUrlError('discord:// needs discord://token@webhook-id');
    const base = apiBase(url, 'discord.com');
    const username = param(url, 'username');
    return {
      kind: 'discord',
      escape: markdownChat,
      secrets: secretsOf(url),
      build(message) {
        const body: Record<string, unknown> = {
          content: fitText(message.text, MAX),
          allowed_mentions: { parse: [] },
        };
        if (username !== null) body.username = username;
        return {
          type: 'http',
          requests: [
            jsonPost(
              `${base}/api/webhooks/${encodeURIComponent(id)}/${encodeURIComponent(token)}`,
              body,
            ),
          ],
        };
      },
    };
  },
};

import { muteMentions } from '../markup.js';
import { fitText } from '../render.js';
import { type ChannelKind, ChannelUrlError } from './types.js';
import { apiBase, boolParam, decode, jsonPost, listParam, secretsOf } from './url-parts.js';

/** Telegram's limit on a message's text. */
const MAX = 4096;

/**
 * telegram://{bot token}@telegram?chats=@channel,12345 (the bot token is `id:secret`, so it
 * fills user and password) → POST https://api.telegram.org/bot{token}/sendMessage
 * {"chat_id", "text", "disable_web_page_preview"} for each chat
 * (https://core.telegram.org/bots/api#sendmessage). `host=` sends to another host. No parse_mode:
 * Telegram shows the text as it is; only `@name` in machine text is muted (it would notify).
 */
export const telegram: ChannelKind<'telegram'> = {
  kind: 'telegram',
  schemes: ['telegram'],
  parse(url) {
    const token = `${decode(url.username)}:${decode(url.password)}`;
    if (!/^\d+:[A-Za-z0-9_-]+$/.test(token))
      throw new ChannelUrlError('telegram:// needs the bot token as telegram://id:secret@telegram');
    const chats = listParam(url, 'chats', 'channels');
    if (chats.length === 0)
      throw new ChannelUrlError('telegram:// needs chats=@channel or chat ids');
    const preview = boolParam(url, 'preview', false);
    const silent = !boolParam(url, 'notification', true);
    const base = apiBase(url, 'api.telegram.org');
    return {
      kind: 'telegram',
      escape: muteMentions,
      secrets: secretsOf(url, token),
      build(message) {
        const text = fitText(message.text, MAX);
        return {
          type: 'http',
          requests: chats.map((chat) =>
            jsonPost(`${base}/bot${token}/sendMessage`, {
              chat_id: chat,
              text,
              disable_web_page_preview: !preview,
              disable_notification: silent,
            }),
          ),
        };
      },
    };
  },
};

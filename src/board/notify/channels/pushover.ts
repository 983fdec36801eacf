import { asIs } from '../markup.js';
import { fitText } from '../render.js';
import { type ChannelKind, ChannelUrlError } from './types.js';
import { apiBase, decode, intParam, listParam, param, secretsOf } from './url-parts.js';

/** Pushover's limits: message 1024, title 250 characters. */
const MAX = 1024;

/**
 * pushover://shoutrrr:{api token}@{user key}/?devices=a,b&priority=-2..2&title=… → POST
 * https://api.pushover.net/1/messages.json, form-encoded token, user, message, title, device,
 * priority, url (https://pushover.net/api). `host=` sends to another host.
 */
export const pushover: ChannelKind<'pushover'> = {
  kind: 'pushover',
  schemes: ['pushover'],
  parse(url) {
    const token = decode(url.password);
    const user = decode(url.hostname);
    if (token === '' || user === '')
      throw new ChannelUrlError('pushover:// needs pushover://shoutrrr:apiToken@userKey');
    const devices = listParam(url, 'devices');
    const priority = intParam(url, 'priority', -2, 2);
    const title = param(url, 'title');
    const base = apiBase(url, 'api.pushover.net');
    return {
      kind: 'pushover',
      // Plain text: html=1 is not sent.
      escape: asIs,
      secrets: secretsOf(url),
      build(message) {
        const form = new URLSearchParams({
          token,
          user,
          message: fitText(message.text, MAX),
          title: (title ?? message.title).slice(0, 250),
        });
        if (devices.length > 0) form.set('device', devices.join(','));
        if (priority !== null) form.set('priority', String(priority));
        if (message.boardUrl !== null) form.set('url', message.boardUrl);
        return {
          type: 'http',
          requests: [
            {
              method: 'POST',
              url: `${base}/1/messages.json`,
              headers: { 'content-type': 'application/x-www-form-urlencoded' },
              body: form.toString(),
            },
          ],
        };
      },
    };
  },
};

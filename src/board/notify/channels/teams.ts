import { escapeEntities, escapeMarkdown } from '../markup.js';
import { fitText } from '../render.js';
import { type ChannelKind, ChannelUrlError } from './types.js';
import { apiBase, decode, jsonPost, param, secretsOf, segments } from './url-parts.js';

const MAX = 20_000;

/**
 * teams://group@tenant/altId/groupOwner?host=example.webhook.office.com (shoutrrr's form of an
 * Incoming Webhook URL) → POST https://{host}/webhookb2/{group}@{tenant}/IncomingWebhook/
 * {altId}/{groupOwner} with a MessageCard {"@type", "@context", "summary", "title", "text"}
 * (https://learn.microsoft.com/en-us/microsoftteams/platform/webhooks-and-connectors/how-to/connectors-using).
 * The card's text is Markdown with some HTML: machine text has its Markdown markers behind
 * backslashes and `& < >` as entities; the title is plain text
 * (https://learn.microsoft.com/en-us/microsoftteams/platform/task-modules-and-cards/cards/cards-format).
 */
export const teams: ChannelKind<'teams'> = {
  kind: 'teams',
  schemes: ['teams'],
  parse(url) {
    const group = decode(url.username);
    const tenant = decode(url.hostname);
    const [altId, owner] = segments(url);
    if (group === '' || tenant === '' || altId === undefined || owner === undefined) {
      throw new ChannelUrlError(
        'teams:// needs teams://group@tenant/altId/groupOwner?host=<organisation>.webhook.office.com',
      );
    }
    if (param(url, 'host') === null)
      throw new ChannelUrlError('teams:// needs host=<organisation>.webhook.office.com');
    const base = apiBase(url, 'outlook.office.com');
    const color = param(url, 'color');
    const path = [`${group}@${tenant}`, 'IncomingWebhook', altId, owner]
      .map(encodeURIComponent)
      .join('/')
      .replace('%40', '@');
    return {
      kind: 'teams',
      escape: (text) => escapeEntities(escapeMarkdown(text, false)),
      secrets: secretsOf(url),
      build(message) {
        const card: Record<string, string> = {
          '@type': 'MessageCard',
          '@context': 'http://schema.org/extensions',
          summary: message.title,
          title: message.title,
          // Teams renders the text as Markdown: two spaces before a newline keep the lines apart.
          text: fitText(message.text, MAX).replace(/\n/g, '  \n'),
        };
        if (color !== null) card.themeColor = color;
        return { type: 'http', requests: [jsonPost(`${base}/webhookb2/${path}`, card)] };
      },
    };
  },
};

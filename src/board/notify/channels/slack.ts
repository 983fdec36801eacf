import { escapeEntities } from '../markup.js';
import { fitText } from '../render.js';
import { type ChannelKind, ChannelUrlError } from './types.js';
import { apiBase, decode, jsonPost, param, secretsOf, segments } from './url-parts.js';

const MAX = 40_000;

/**
 * Two forms, as shoutrrr reads them:
 * - an incoming webhook: slack://[botname@]token-a/token-b/token-c (or slack://hook:a-b-c@webhook)
 *   → POST https://hooks.slack.com/services/a/b/c {"text", "username"?}
 *   (https://api.slack.com/messaging/webhooks);
 * - a bot token: slack://xoxb:token@channel → POST https://slack.com/api/chat.postMessage with
 *   Authorization: Bearer xoxb-token, {"channel", "text"}; Slack answers 200 {"ok": false,
 *   "error"} to a refusal (https://api.slack.com/methods/chat.postMessage).
 * `host=` (and `scheme=http`) sends to another host. The text is mrkdwn: machine text has `&`,
 * `<` and `>` as entities, so `<!channel>` and `<url|label>` stay text
 * (https://api.slack.com/reference/surfaces/formatting#escaping).
 */
export const slack: ChannelKind<'slack'> = {
  kind: 'slack',
  schemes: ['slack'],
  parse(url) {
    const user = decode(url.username);
    const password = decode(url.password);
    const parts = segments(url);
    const botname = param(url, 'botname') ?? param(url, 'username');
    const secrets = secretsOf(url);
    if (user === 'xoxb' || user === 'xoxp') {
      const token = `${user}-${password}`;
      const channel = decode(url.hostname);
      if (password === '' || channel === '')
        throw new ChannelUrlError('slack:// with a bot token needs slack://xoxb:token@channel');
      const base = apiBase(url, 'slack.com');
      return {
        kind: 'slack',
        escape: escapeEntities,
        secrets: [...secrets, token],
        build(message) {
          const body: Record<string, string> = { channel, text: fitText(message.text, MAX) };
          if (botname !== null) body.username = botname;
          return {
            type: 'http',
            requests: [
              jsonPost(`${base}/api/chat.postMessage`, body, { authorization: `Bearer ${token}` }),
            ],
          };
        },
        refusal: (_status, text) => slackRefusal(text),
      };
    }
    let tokens: string[];
    if (user === 'hook' && password !== '') tokens = password.split('-');
    else tokens = [decode(url.hostname), ...parts];
    if (tokens.length !== 3 || tokens.some((t) => t === '')) {
      throw new ChannelUrlError(
        'slack:// needs a webhook as slack://token-a/token-b/token-c or a bot token as slack://xoxb:token@channel',
      );
    }
    const name = botname ?? (user === 'hook' || user === '' ? null : user);
    const base = apiBase(url, 'hooks.slack.com');
    return {
      kind: 'slack',
      escape: escapeEntities,
      secrets,
      build(message) {
        const body: Record<string, string> = { text: fitText(message.text, MAX) };
        if (name !== null) body.username = name;
        return {
          type: 'http',
          requests: [
            jsonPost(`${base}/services/${tokens.map(encodeURIComponent).join('/')}`, body),
          ],
        };
      },
    };
  },
};

function slackRefusal(text: string): string | null {
  try {
    const body = JSON.parse(text) as { ok?: unknown; error?: unknown };
    if (body.ok === false) return `Slack refused it: ${String(body.error ?? 'unknown error')}`;
    return null;
  } catch {
    return null;
  }
}

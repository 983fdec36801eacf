import { asIs } from '../markup.js';
import { type ChannelKind, ChannelUrlError, type MailSpec } from './types.js';
import { decode, hostOf, listParam, param, secretsOf } from './url-parts.js';

const ENCRYPTIONS = ['none', 'starttls', 'tls', 'auto'] as const;
const DEFAULT_PORTS: Record<MailSpec['encryption'], number> = {
  none: 25,
  starttls: 587,
  tls: 465,
  auto: 25,
};

/**
 * smtp://[user:password@]host[:port]/?from=board@example&to=a@example,b@example
 * [&encryption=none|starttls|tls|auto][&subject=…][&ca=/path/to/ca.pem] — a mail through
 * nodemailer. `fromaddress`/`toaddresses` (shoutrrr's names) are read as well.
 */
export const email: ChannelKind<'email'> = {
  kind: 'email',
  schemes: ['smtp', 'smtps'],
  parse(url, options) {
    const from = param(url, 'from') ?? param(url, 'fromaddress');
    const to = listParam(url, 'to', 'toaddresses');
    if (from === null || from === '' || to.length === 0)
      throw new ChannelUrlError('smtp:// needs from= and to= addresses');
    const raw = (
      param(url, 'encryption') ?? (url.protocol === 'smtps:' ? 'tls' : 'auto')
    ).toLowerCase();
    const encryption = ENCRYPTIONS.find((e) => e === raw);
    if (encryption === undefined)
      throw new ChannelUrlError('encryption must be none, starttls, tls or auto');
    const caFile = param(url, 'ca');
    let ca: string | null = null;
    if (caFile !== null) {
      try {
        ca = (options.readFile ?? (() => ''))(caFile);
      } catch {
        throw new ChannelUrlError('ca= names a file that cannot be read');
      }
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    hostOf(url);
    const user = decode(url.username);
    const pass = decode(url.password);
    const subject = param(url, 'subject');
    return {
      kind: 'email',
      // A plain-text mail, no HTML part.
      escape: asIs,
      secrets: secretsOf(url),
      build(message) {
        return {
          type: 'smtp',
          mail: {
            host,
            port: url.port === '' ? DEFAULT_PORTS[encryption] : Number(url.port),
            encryption,
            user: user === '' ? null : user,
            pass: pass === '' ? null : pass,
            ca,
            from,
            to,
            subject: subject ?? message.title,
            text: message.text,
          },
        };
      },
    };
  },
};

import { randomUUID } from 'node:crypto';
import { muteMentions } from '../markup.js';
import { type ChannelKind, ChannelUrlError } from './types.js';
import { decode, hostOf, listParam, schemeOf, secretsOf } from './url-parts.js';

/**
 * matrix://:{access token}@homeserver[:port]/?rooms=!roomid:server[,…][&disabletls=yes] → for
 * each room, PUT /_matrix/client/v3/rooms/{room}/send/m.room.message/{txnId} {"msgtype":
 * "m.text", "body"} with Authorization: Bearer (https://spec.matrix.org/v1.11/client-server-api/
 * #put_matrixclientv3roomsroomidsendeventtypetxnid). Only access tokens (shoutrrr's form with an
 * empty user) and room ids (!…): a password login and alias look-ups would add requests that
 * can fail on their own. The body is plain text (no formatted_body); an empty `m.mentions` says
 * it mentions nobody, so no push rule reads `@room` or a name in it (spec 1.7 and later), and
 * `@` in machine text is muted for older servers.
 */
export const matrix: ChannelKind<'matrix'> = {
  kind: 'matrix',
  schemes: ['matrix'],
  parse(url) {
    const user = decode(url.username);
    const token = decode(url.password);
    if (user !== '' || token === '') {
      throw new ChannelUrlError(
        'matrix:// takes an access token with an empty user: matrix://:token@homeserver/?rooms=!id:server',
      );
    }
    const rooms = listParam(url, 'rooms', 'room');
    if (rooms.length === 0 || rooms.some((r) => !r.startsWith('!'))) {
      throw new ChannelUrlError('matrix:// needs rooms=!roomid:server (room ids, not aliases)');
    }
    const base = `${schemeOf(url)}://${hostOf(url)}`;
    return {
      kind: 'matrix',
      escape: muteMentions,
      secrets: secretsOf(url),
      build(message) {
        const body = JSON.stringify({ msgtype: 'm.text', body: message.text, 'm.mentions': {} });
        // One transaction id per message and room: a retried PUT is not posted twice.
        const txn = randomUUID();
        return {
          type: 'http',
          requests: rooms.map((room) => ({
            method: 'PUT' as const,
            url: `${base}/_matrix/client/v3/rooms/${encodeURIComponent(room)}/send/m.room.message/${txn}`,
            headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
            body,
          })),
        };
      },
    };
  },
};

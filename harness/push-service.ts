import {
  createCipheriv,
  createDecipheriv,
  createECDH,
  createPublicKey,
  type ECDH,
  hkdfSync,
  randomBytes,
  verify,
} from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';

/** A browser's side of a subscription: its key pair and auth secret, made as a browser makes them. */
export interface Subscriber {
  id: string;
  /** What the browser's PushSubscription.toJSON() gives, to POST to the board. */
  json: { endpoint: string; expirationTime: null; keys: { p256dh: string; auth: string } };
  ecdh: ECDH;
  auth: Buffer;
}

/** One message the push service took: checked, and decrypted as the browser would. */
export interface PushDelivery {
  subscriber: string;
  /** The decrypted payload, parsed. */
  payload: Record<string, unknown>;
  ttl: number;
  urgency: string | null;
  /** The VAPID key the request was signed with (k=). */
  vapidKey: string;
  jwt: { aud: string; exp: number; sub: string };
  /** performance.now() once the request was checked and decrypted (the bench times with it). */
  receivedMs: number;
}

const b64u = (b: Buffer) => b.toString('base64url');

/** An uncompressed P-256 point as a KeyObject (for the ES256 signature check). */
function publicKeyOf(point: Buffer) {
  return createPublicKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: b64u(point.subarray(1, 33)),
      y: b64u(point.subarray(33, 65)),
    },
    format: 'jwk',
  });
}

/**
 * Checks a VAPID Authorization header (RFC 8292): `vapid t=<JWT>, k=<key>`, the JWT signed with
 * ES256 by the key k, its audience the endpoint's origin, expiring within 24 h, its subject the
 * contact given. Throws saying what is wrong.
 */
export function checkVapid(
  header: string | undefined,
  origin: string,
  subject: string,
  now = Date.now(),
): { key: string; claims: PushDelivery['jwt'] } {
  const m = /^vapid t=([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+), k=([A-Za-z0-9_-]+)$/.exec(
    header ?? '',
  );
  if (m === null) throw new Error(`Authorization is not "vapid t=…, k=…": ${header}`);
  const [jwt = '', k = ''] = [m[1], m[2]];
  const [h = '', p = '', s = ''] = jwt.split('.');
  const head = JSON.parse(Buffer.from(h, 'base64url').toString()) as Record<string, unknown>;
  if (head.alg !== 'ES256') throw new Error(`JWT alg ${String(head.alg)}, not ES256`);
  const key = Buffer.from(k, 'base64url');
  if (key.length !== 65 || key[0] !== 4) throw new Error('k is not an uncompressed P-256 point');
  const signature = Buffer.from(s, 'base64url');
  const good = verify(
    'sha256',
    Buffer.from(`${h}.${p}`),
    { key: publicKeyOf(key), dsaEncoding: 'ieee-p1363' },
    signature,
  );
  if (!good) throw new Error('the JWT signature does not verify with k');
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as PushDelivery['jwt'];
  if (claims.aud !== origin) throw new Error(`aud ${claims.aud}, not the origin ${origin}`);
  const nowS = now / 1000;
  if (!(claims.exp > nowS && claims.exp <= nowS + 24 * 3600))
    throw new Error(`exp ${claims.exp} is not within 24 h`);
  if (claims.sub !== subject) throw new Error(`sub ${claims.sub}, not ${subject}`);
  return { key: k, claims };
}

/**
 * Decrypts an aes128gcm body (RFC 8188) sent to a subscriber (RFC 8291): the sender's key from
 * the header, ECDH with the subscriber's private key, the auth secret into HKDF-SHA256 with
 * "WebPush: info", then the content-encryption key and nonce, AES-128-GCM, padding stripped.
 */
export function decryptPush(body: Buffer, subscriber: { ecdh: ECDH; auth: Buffer }): Buffer {
  const salt = body.subarray(0, 16);
  const rs = body.readUInt32BE(16);
  const idlen = body[20] ?? 0;
  const senderKey = body.subarray(21, 21 + idlen);
  const records = body.subarray(21 + idlen);
  if (idlen !== 65) throw new Error(`keyid is ${idlen} bytes, not a P-256 point`);
  if (records.length > rs) throw new Error('more than one record');
  const secret = subscriber.ecdh.computeSecret(senderKey);
  const info = Buffer.concat([
    Buffer.from('WebPush: info\0'),
    subscriber.ecdh.getPublicKey(),
    senderKey,
  ]);
  const ikm = Buffer.from(hkdfSync('sha256', secret, subscriber.auth, info, 32));
  const cek = Buffer.from(
    hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16),
  );
  const nonce = Buffer.from(
    hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12),
  );
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(records.subarray(records.length - 16));
  const padded = Buffer.concat([
    decipher.update(records.subarray(0, records.length - 16)),
    decipher.final(),
  ]);
  let end = padded.length;
  while (end > 0 && padded[end - 1] === 0) end -= 1;
  // The last record ends with the delimiter 0x02 before its padding.
  if (padded[end - 1] !== 2) throw new Error('no last-record padding delimiter');
  return padded.subarray(0, end - 1);
}

/** The reverse of decryptPush, for the helper's own test: what a sender does. */
export function encryptPush(plain: Buffer, p256dh: Buffer, auth: Buffer): Buffer {
  const sender = createECDH('prime256v1');
  sender.generateKeys();
  const salt = randomBytes(16);
  const secret = sender.computeSecret(p256dh);
  const info = Buffer.concat([Buffer.from('WebPush: info\0'), p256dh, sender.getPublicKey()]);
  const ikm = Buffer.from(hkdfSync('sha256', secret, auth, info, 32));
  const cek = Buffer.from(
    hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16),
  );
  const nonce = Buffer.from(
    hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12),
  );
  const cipher = createCipheriv('aes-128-gcm', cek, nonce);
  const sealed = Buffer.concat([
    cipher.update(Buffer.concat([plain, Buffer.from([2])])),
    cipher.final(),
  ]);
  const head = Buffer.alloc(21);
  salt.copy(head, 0);
  head.writeUInt32BE(4096, 16);
  head[20] = 65;
  return Buffer.concat([head, sender.getPublicKey(), sealed, cipher.getAuthTag()]);
}

/**
 * A push service on 127.0.0.1 that speaks the protocol a browser vendor's does (RFC 8030 with
 * VAPID and aes128gcm): each subscriber has an endpoint /push/<id>; each POST is checked
 * (VAPID, Content-Encoding, TTL) and decrypted with that subscriber's keys, as its browser
 * would. A request that fails a check is answered 400 and its reason kept in `problems`.
 * The tests (test/push.e2e.test.ts, the webpush channel's) and the bench (`--only inbox`)
 * share it.
 */
export class PushService {
  readonly deliveries: PushDelivery[] = [];
  readonly problems: string[] = [];
  /** Requests seen, by subscriber id (checked or not). */
  readonly hits = new Map<string, number>();
  /** The answer to a subscriber's next requests (default 201 Created). */
  answer: (subscriber: string) => number = () => 201;
  private readonly subscribers = new Map<string, Subscriber>();
  /** Called with each delivery as it is taken (see `next`). */
  private readonly listeners = new Set<(delivery: PushDelivery) => void>();
  private server: Server | null = null;
  port = 0;

  constructor(
    /** The contact the board must sign with (push.subject). */
    readonly subject: string,
  ) {}

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** A new subscriber, as a browser's PushManager.subscribe() makes one. */
  subscriber(): Subscriber {
    const id = randomBytes(12).toString('base64url');
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    const auth = randomBytes(16);
    const s: Subscriber = {
      id,
      ecdh,
      auth,
      json: {
        endpoint: `${this.origin}/push/${id}`,
        expirationTime: null,
        keys: { p256dh: b64u(ecdh.getPublicKey()), auth: b64u(auth) },
      },
    };
    this.subscribers.set(id, s);
    return s;
  }

  /** The deliveries to one subscriber. */
  to(subscriber: Subscriber): PushDelivery[] {
    return this.deliveries.filter((d) => d.subscriber === subscriber.id);
  }

  /**
   * The first delivery taken from now on that `match` accepts; rejects after `timeoutMs`. Set
   * up before what should cause it, so that a delivery as quick as the cause is not missed.
   */
  next(match: (delivery: PushDelivery) => boolean, timeoutMs: number): Promise<PushDelivery> {
    return new Promise((resolve, reject) => {
      const listener = (delivery: PushDelivery) => {
        if (!match(delivery)) return;
        clearTimeout(timer);
        this.listeners.delete(listener);
        resolve(delivery);
      };
      const timer = setTimeout(() => {
        this.listeners.delete(listener);
        reject(new Error(`no push delivery within ${timeoutMs} ms`));
      }, timeoutMs);
      this.listeners.add(listener);
    });
  }

  private take(req: IncomingMessage, body: Buffer): { status: number; why?: string } {
    const m = /^\/push\/([A-Za-z0-9_-]+)$/.exec(req.url ?? '');
    const sub = m === null ? undefined : this.subscribers.get(m[1] ?? '');
    if (req.method !== 'POST' || sub === undefined)
      return { status: 404, why: 'no such subscription' };
    this.hits.set(sub.id, (this.hits.get(sub.id) ?? 0) + 1);
    const status = this.answer(sub.id);
    if (status !== 201) return { status };
    try {
      const { key, claims } = checkVapid(req.headers.authorization, this.origin, this.subject);
      if (req.headers['content-encoding'] !== 'aes128gcm')
        throw new Error(`Content-Encoding ${req.headers['content-encoding']}, not aes128gcm`);
      const ttl = Number(req.headers.ttl);
      if (req.headers.ttl === undefined || !Number.isInteger(ttl) || ttl < 0)
        throw new Error(`TTL header ${req.headers.ttl} is not a number of seconds`);
      const plain = decryptPush(body, sub);
      const urgency = req.headers.urgency;
      const delivery: PushDelivery = {
        subscriber: sub.id,
        payload: JSON.parse(plain.toString('utf8')) as Record<string, unknown>,
        ttl,
        urgency: typeof urgency === 'string' ? urgency : null,
        vapidKey: key,
        jwt: claims,
        receivedMs: performance.now(),
      };
      this.deliveries.push(delivery);
      for (const listener of [...this.listeners]) listener(delivery);
      return { status: 201 };
    } catch (error) {
      const why = (error as Error).message;
      this.problems.push(why);
      return { status: 400, why };
    }
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const { status, why } = this.take(req, Buffer.concat(chunks));
        if (status === 201) res.writeHead(201, { location: `${this.origin}/message/1` }).end();
        else res.writeHead(status, { 'content-type': 'text/plain' }).end(why ?? '');
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    this.port = typeof address === 'object' && address !== null ? address.port : 0;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

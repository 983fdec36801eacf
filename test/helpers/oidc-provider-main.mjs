// A real OpenID Provider (oidc-provider) as its own process, for the sign-in tests: HTTPS on
// 127.0.0.1 with the test's certificate, the clients and users the test wrote. Users' groups are
// read again at every sign-in (users.json); mischief.json, when present, makes the provider sign
// an ID token with a claim it should not have (a wrong aud, iss or nonce, or an expired one),
// with its own real key: what the board must refuse.
import { createSign, generateKeyPairSync } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import Provider from 'oidc-provider';

const setup = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const readJson = (file) => (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : null);

const server = createServer({
  cert: readFileSync(setup.cert),
  key: readFileSync(setup.key),
});
await new Promise((resolve) => server.listen(setup.port ?? 0, '127.0.0.1', resolve));
const issuer = `https://127.0.0.1:${server.address().port}`;

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'test-key', use: 'sig', alg: 'RS256' };

const provider = new Provider(issuer, {
  clients: setup.clients,
  jwks: { keys: [jwk] },
  cookies: { keys: ['oidc-provider-test-cookie-key'] },
  claims: { openid: ['sub'], profile: ['preferred_username', 'groups', 'name'] },
  features: {
    devInteractions: { enabled: true },
    rpInitiatedLogout: { enabled: true },
  },
  ttl: { IdToken: 600, AccessToken: 600, Session: 3600, Interaction: 600, Grant: 3600 },
  async findAccount(_ctx, sub) {
    return {
      accountId: sub,
      async claims() {
        const user = readJson(setup.usersFile)?.[sub] ?? {};
        return { sub, preferred_username: sub, name: sub, groups: user.groups ?? [] };
      },
    };
  },
});

const issue = provider.IdToken.prototype.issue;
provider.IdToken.prototype.issue = async function issueWithMischief(options) {
  const token = await issue.call(this, options);
  const mischief = readJson(setup.mischiefFile);
  if (mischief === null || options?.use !== 'idtoken') return token;
  const [header, body] = token.split('.');
  const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  Object.assign(claims, mischief.claims ?? {});
  if (mischief.expired === true) {
    claims.iat -= 7200;
    claims.exp = claims.iat + 600;
  }
  const signed = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  const signature = createSign('sha256').update(signed).sign(privateKey).toString('base64url');
  console.log(
    `mischief: an ID token with ${Object.keys(mischief.claims ?? {}).join(',')}${mischief.expired ? ' expired' : ''}`,
  );
  return `${signed}.${signature}`;
};

server.on('request', provider.callback());
console.log(`oidc-provider listening at ${issuer}`);
process.on('SIGTERM', () => process.exit(0));

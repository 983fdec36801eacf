/**
 * The session cookie (DESIGN 15): `__Host-panoptes` on HTTPS (Secure, Path=/, no Domain: only
 * this origin can set it), `panoptes` on plain HTTP. An HTTPS board reads only the prefixed one,
 * so a cookie planted over plain HTTP is never taken.
 */
export function cookieName(secure: boolean): string {
  return secure ? '__Host-panoptes' : 'panoptes';
}

/** The Set-Cookie value that gives the browser its session. */
export function sessionCookie(secret: string, secure: boolean, maxAgeS: number): string {
  const parts = [`${cookieName(secure)}=${secret}`, 'Path=/', 'HttpOnly', 'SameSite=Lax'];
  if (secure) parts.push('Secure');
  parts.push(`Max-Age=${Math.floor(maxAgeS)}`);
  return parts.join('; ');
}

/** The Set-Cookie value that drops it. */
export function clearedCookie(secure: boolean): string {
  const parts = [`${cookieName(secure)}=`, 'Path=/', 'HttpOnly', 'SameSite=Lax', 'Max-Age=0'];
  if (secure) parts.push('Secure');
  return parts.join('; ');
}

/** The session secret a Cookie header carries under `name`, or null. */
export function readCookie(header: string | undefined, name: string): string | null {
  if (header === undefined || header.length > 16_384) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    return /^[A-Za-z0-9_-]{20,100}$/.test(value) ? value : null;
  }
  return null;
}

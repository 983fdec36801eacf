/** A certificate as a runner saw it. */
export interface SeenCert {
  fingerprint256: string;
  issuer: string;
}

/** Certificates a check keeps in mind: a load balancer's few do not flap back and forth. */
const KNOWN_MAX = 8;

/**
 * The certificates one check's runners have seen. A certificate none of them saw before is a
 * change, announced once whichever runner sees it first; the first one ever seen is not.
 */
export class CertWatch {
  private readonly known: string[] = [];
  private last: SeenCert | null = null;

  /** The description of the change `cert` makes, or null when it is not new. */
  see(cert: SeenCert): string | null {
    const key = `${cert.fingerprint256}\0${cert.issuer}`;
    if (this.known.includes(key)) return null;
    const before = this.last;
    this.known.push(key);
    if (this.known.length > KNOWN_MAX) this.known.shift();
    this.last = cert;
    if (before === null) return null;
    const parts: string[] = [];
    if (before.fingerprint256 !== cert.fingerprint256)
      parts.push(`fingerprint ${before.fingerprint256} → ${cert.fingerprint256}`);
    if (before.issuer !== cert.issuer) parts.push(`issuer ${before.issuer} → ${cert.issuer}`);
    return `certificate changed: ${parts.join(', ')}`;
  }
}
